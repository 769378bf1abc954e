// A value of another shape than its type, as a results file written by another version may hold one: typed
// as whatever the reader takes, so a test can prove the reader's defences.

export const malformed = (value: unknown): never => value as never;
