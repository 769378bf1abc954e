// Every action init's workflow uses, pinned by full commit SHA (organisations may require it) with its release as
// a comment, the form Dependabot keeps current; a test holds the repository's own workflows to the same pins.
export const ACTIONS = {
  checkout: 'actions/checkout@d23441a48e516b6c34aea4fa41551a30e30af803 # v6.1.0',
  setupNode: 'actions/setup-node@249970729cb0ef3589644e2896645e5dc5ba9c38 # v6.5.0',
  upload: 'actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f # v7.0.0',
  download: 'actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c # v8.0.1',
  pnpm: 'pnpm/action-setup@fe02b34f77f8bc703788d5817da081398fad5dd2 # v4.0.0',
  uploadSarif: 'github/codeql-action/upload-sarif@8aad20d150bbac5944a9f9d289da16a4b0d87c1e # v4.36.2',
  attest: 'actions/attest-build-provenance@a2bbfa25375fe432b6a289bc6b6cd05ecd0c4c32 # v4.1.0',
} as const;
