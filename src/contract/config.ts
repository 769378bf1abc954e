// The public shapes a config author writes (steps, expectations, the client), shared by the config,
// the plan and the driver's protocol. Type-only: nothing here exists at run time.

/** One scripted interaction run in the stdio phase (and the first tool step in the http phase). */
export type Step =
  | {
      tool: string;
      vary?: Vary;
      arguments?: Record<string, unknown>;
      /**
       * The call takes a while: the lifecycle checks (src/driver/lifecycle/checks.ts) cancel it in flight
       * and send a second `initialize` while it runs. One that answers at once is a config warning.
       */
      slow?: boolean;
      /**
       * The call changes state (creates, sends, deletes): the lifecycle checks never call it again. invalid-arguments
       * and repeated-initialize use another tool step, or go without; cancellation, which needs the slow call, is skipped.
       */
      sideEffects?: boolean;
      expect?: {
        /** Expect the result's `isError` flag to be exactly this (default false). */
        isError?: boolean;
        /** Substring that must appear in the joined text content. */
        text?: string;
        /** Subset that `structuredContent` must contain (deep partial match). */
        structuredContent?: Record<string, unknown>;
      };
    }
  | { resource: string; vary?: Vary; expect?: { text?: string } }
  | { prompt: string; vary?: Vary; arguments?: Record<string, string>; expect?: { messages?: number; text?: string } };

/**
 * Paths in a step's normalised answer whose value legitimately differs between runs (an id, a timestamp):
 * answer parity records them as `(varies)`. E.g. `content[0].text`, `structuredContent.id`.
 */
type Vary = string[];

export interface SurfaceExpectation {
  tools?: number | string[];
  resources?: number | string[];
  resourceTemplates?: number | string[];
  prompts?: number | string[];
}

/** The driver's MCP client, as configured (`client` in the config), defaults applied. */
export interface ClientSpec {
  /** Declared in `initialize`; holds `roots` whenever roots are configured. */
  capabilities: Record<string, Record<string, unknown>>;
  /** The answer to `roots/list` (only answered when `capabilities.roots` is declared). */
  roots: { uri: string; name?: string }[];
  /** A tool step without `arguments`: leave the field out (re-sent with `{}` when refused as invalid params) or send `{}`. */
  noArguments: 'empty' | 'omit';
}

/** A phase a secret can be needed by (every phase that starts the server). */
export type SecretPhase = 'stdio' | 'http' | 'bind' | 'conformance' | 'leaks';

/** What a fork's or Dependabot's run (no secrets) makes of the phases a missing secret kept from running (config `secretsOnFork`). */
export type ForkPolicy = 'not-measured' | 'fail';

/** A secret the servers need from the run's environment (config `secrets`, resolved): its name, never its value. */
export interface SecretSpec {
  name: string;
  phases: SecretPhase[];
  whenAbsent: 'not-measured' | 'skipped';
}
