// The GitHub Actions event payload (GITHUB_EVENT_PATH), read once per run: it tells a fork's pull request
// apart, whose run gets no secrets. Off GitHub, or unreadable, there is none.
import { readFileSync } from 'node:fs';
import type { PullRequestEvent } from '../judge/secrets.js';

export function readPullRequestEvent(file: string | undefined): PullRequestEvent | undefined {
  if (!file) return undefined;
  try {
    const event = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof event === 'object' && event !== null ? (event as PullRequestEvent) : undefined;
  } catch {
    return undefined;
  }
}
