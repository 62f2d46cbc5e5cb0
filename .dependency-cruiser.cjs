/**
 * The boundaries between the project's folders (README "Architecture"), checked by `npm test`
 * through `npm run lint:deps`: the browser app and the server never import each other; agents
 * are peers that reach the server over its API only, so they import neither; and `shared/`
 * imports none of them and nothing of Node, so it runs in both.
 */
module.exports = {
  forbidden: [
    {
      name: 'client-not-to-server',
      comment: 'The browser app talks to the server over HTTP and WebSocket only.',
      severity: 'error',
      from: { path: '^client/' },
      to: { path: '^server/' },
    },
    {
      name: 'server-not-to-client',
      severity: 'error',
      from: { path: '^server/' },
      to: { path: '^client/' },
    },
    {
      name: 'agents-are-peers',
      comment: 'An agent reaches the server over HTTP or WebSocket, like any external agent.',
      severity: 'error',
      from: { path: '^agents/' },
      to: { path: '^(server|client)/' },
    },
    {
      name: 'shared-stays-shared',
      comment: 'shared/ runs in the browser and in Node: it imports no side.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(client|server|agents|bench|tests)/' },
    },
    {
      name: 'shared-without-node',
      comment: 'shared/ touches no disk and no network: no Node built-ins.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'no-circular-shared',
      severity: 'error',
      from: { path: '^shared/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
