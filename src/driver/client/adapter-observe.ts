// The adapter's part (adapter.ts) that watches a client's transport: the initialize answer (v1 has no
// negotiated-version getter) and every request the server sends the client, with the client's answer.
// It works on any transport of either SDK major, so it needs to know neither.

import type { SeenRequest } from '../../results/types.js';

/** A request the server sent to the client, and what the client answered (`result`, `error <code> …`). */
export type { SeenRequest };

type Message = { id?: unknown; method?: unknown; result?: Record<string, unknown>; error?: { code?: unknown; message?: unknown } } | null;

/**
 * Wraps `start` and `send` so that, on any transport, the initialize response is seen (v1 has no
 * negotiated-version getter) and every server→client request is recorded with the client's answer.
 */
export function observe(
  transport: Record<string, unknown>,
  on: {
    onInitialize(result: Record<string, unknown>): void;
    onServerRequest(seen: SeenRequest): void;
    onResult(result: unknown): void;
  },
): void {
  const pending = new Map<unknown, SeenRequest>();
  const start = transport.start as (() => Promise<void>) | undefined;
  if (typeof start === 'function') {
    transport.start = async function (this: Record<string, unknown>) {
      const handler = transport.onmessage as ((message: unknown, extra?: unknown) => void) | undefined;
      if (handler) {
        transport.onmessage = (message: unknown, extra?: unknown) => {
          const m = message as Message;
          const result = m?.result;
          if (result !== undefined) on.onResult(result);
          if (result && typeof result.protocolVersion === 'string' && result.capabilities) on.onInitialize(result);
          if (typeof m?.method === 'string' && m.id !== undefined && m.id !== null) {
            const seen: SeenRequest = { method: m.method, answer: 'unanswered' };
            pending.set(m.id, seen);
            on.onServerRequest(seen);
          }
          handler(message, extra);
        };
      }
      return start.call(transport);
    };
  }
  const send = transport.send as ((message: unknown, ...rest: unknown[]) => Promise<void>) | undefined;
  if (typeof send !== 'function') return;
  transport.send = function (this: unknown, message: unknown, ...rest: unknown[]) {
    const m = message as Message;
    const seen = m && m.method === undefined ? pending.get(m.id) : undefined;
    if (seen) {
      pending.delete(m!.id);
      seen.answer = m!.error ? `error ${String(m!.error.code)} ${String(m!.error.message ?? '')}`.trim() : 'result';
    }
    return send.call(transport, message, ...rest);
  };
}
