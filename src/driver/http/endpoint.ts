// The URL of a server's MCP endpoint, as the http and conformance phases address it.

/** `http://[::1]:4000/mcp`: an IPv6 host in brackets, the path with its leading slash. */
export function endpointUrl(host: string, port: number, path: string): string {
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  return `http://${hostInUrl}:${port}${path.startsWith('/') ? path : `/${path}`}`;
}
