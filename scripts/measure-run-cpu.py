#!/usr/bin/env python3
# Where one CLI run's CPU goes, process by process (docs/performance.md, "What one CLI run costs"): runs a command
# under BSD process accounting (acct(2): root, or CAP_SYS_PACCT) and prints the command's own CPU and each process
# it started, grouped by name (npm sets its title: "npm view …", "npm install"), with every process below a
# direct child (the driver's servers) summed as `driver-tree`. The kernel records user + system CPU of all
# threads of a process when it exits, so a process's children are never counted twice.
#   python3 scripts/measure-run-cpu.py [--json FILE] [--tree] -- node bin/mcp-matrix.js run --cell latest-1 …
import collections, ctypes, json, os, struct, subprocess, sys, tempfile

args = sys.argv[1:]
json_out, show_tree = None, False
while args and args[0] != '--':
    if args[0] == '--json':
        json_out, args = args[1], args[2:]
    elif args[0] == '--tree':
        show_tree, args = True, args[1:]
    else:
        sys.exit(f'unknown option {args[0]}')
args = args[1:]
if not args:
    sys.exit('usage: measure-run-cpu.py [--json FILE] [--tree] -- COMMAND ...')

libc = ctypes.CDLL(None, use_errno=True)
fd, log = tempfile.mkstemp(prefix='mm-acct-')
os.close(fd)
if libc.acct(log.encode()) != 0:
    os.unlink(log)
    sys.exit('acct(2): ' + os.strerror(ctypes.get_errno()) + ' (process accounting needs root)')
try:
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    code = child.wait()
finally:
    libc.acct(None)
with open(log, 'rb') as f:
    data = f.read()
os.unlink(log)


def comp(v):  # comp_t: 13-bit mantissa, 3-bit base-8 exponent, in AHZ (100 per second) ticks
    return (v & 0x1FFF) << (3 * ((v >> 13) & 7))


records = []
for i in range(0, len(data) - 63, 64):  # struct acct_v3
    f = struct.unpack('<BBHIIIIIIf8H16s', data[i:i + 64])
    records.append(dict(pid=f[6], ppid=f[7], comm=f[18].split(b'\0')[0].decode(errors='replace'),
                        cpu=(comp(f[10]) + comp(f[11])) / 100.0, wall=f[9] / 100.0))
children = collections.defaultdict(list)
for r in records:
    children[r['ppid']].append(r)
root = next((r for r in records if r['pid'] == child.pid), None)
tree = []


def walk(pid, depth):
    for c in children.get(pid, []):
        tree.append(dict(depth=depth, **c))
        walk(c['pid'], depth + 1)


walk(child.pid, 1)
groups, counts = collections.defaultdict(float), collections.Counter()
for r in tree:
    key = r['comm'] if r['depth'] == 1 else 'driver-tree'
    groups[key] += r['cpu']
    counts[key] += 1
own = root['cpu'] if root else 0.0
print(f'exit {code}; total {own + sum(groups.values()):.2f} CPU-s; the command itself {own:.2f}')
for key, cpu in sorted(groups.items(), key=lambda kv: -kv[1]):
    print(f'  {cpu:6.2f} CPU-s  x{counts[key]:<3} {key}')
if show_tree:
    for r in tree:
        print('    ' + '  ' * r['depth'] + f"{r['comm']} (pid {r['pid']}): {r['cpu']:.2f} CPU-s, {r['wall']:.2f} s")
if json_out:
    with open(json_out, 'w') as f:
        json.dump(dict(code=code, root=root, tree=tree), f)
