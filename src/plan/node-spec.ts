// A Node spec as the config writes it (`22` or `22.11.0`): its form, its variant id, and the release it names
// among published versions. Pure, so the registry look-ups (node-versions.ts) stay apart from the rule.
import semver from 'semver';
import { stableVersions } from './pins.js';
import { fail, ok, type Result } from '../util/result.js';

const MAJOR = /^\d+$/;
const EXACT = /^\d+\.\d+\.\d+$/;

/** The spec as written in the config, normalised to a string: `22`, `22.11.0`. */
export function nodeSpec(spec: number | string): string {
  return String(spec).trim();
}

/** `node-22`, `node-22.11.0`: the variant id part of a Node spec. */
export function nodeVariantId(spec: number | string): string {
  return `node-${nodeSpec(spec)}`;
}

/** A problem with the form of a spec (before any look-up), else undefined. */
export function nodeSpecProblem(spec: number | string): string | undefined {
  const s = nodeSpec(spec);
  if (MAJOR.test(s) || EXACT.test(s)) return undefined;
  return `node "${s}" is neither a major (22) nor an exact release (22.11.0)`;
}

/** Pure: the release a spec names among published versions, or the reason there is none. */
export function pickNodeRelease(spec: number | string, published: Iterable<string>): Result<string> {
  const s = nodeSpec(spec);
  const problem = nodeSpecProblem(s);
  if (problem) return fail('usage', problem);
  const releases = stableVersions(published);
  if (EXACT.test(s)) {
    if (releases.includes(s)) return ok(s);
    const major = Number(s.split('.')[0]);
    const same = releases.filter((v) => semver.major(v) === major);
    return fail(
      'usage',
      `node ${s} is not a published Node release${same.length ? ` (${major}.x: ${same[0]} … ${same.at(-1)})` : `; published majors: ${majorsOf(releases).join(', ')}`}`,
    );
  }
  const major = Number(s);
  const newest = releases.filter((v) => semver.major(v) === major).at(-1);
  if (newest) return ok(newest);
  return fail('usage', `node ${s} matches no published Node release; published majors: ${majorsOf(releases).join(', ')}`);
}

function majorsOf(releases: string[]): number[] {
  return [...new Set(releases.map((v) => semver.major(v)))];
}
