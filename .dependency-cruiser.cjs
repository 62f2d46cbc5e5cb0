/**
 * The boundaries between the project's folders (README "Architecture"), checked by `npm test`
 * through `npm run lint:deps`: the browser app and the server never import each other; agents
 * are peers that reach the server over its API only, so they import neither; and `shared/`
 * imports none of them and nothing of Node, so it runs in both.
 */
/** A rule that no module under `from` imports what `to` matches (a path pattern, or more). */
const forbid = (name, comment, from, to) => ({ name, ...(comment && { comment }), severity: 'error', from: { path: from }, to });

module.exports = {
  forbidden: [
    forbid('client-not-to-server', 'The browser app talks to the server over HTTP and WebSocket only.', '^client/', { path: '^server/' }),
    forbid('server-not-to-client', undefined, '^server/', { path: '^client/' }),
    forbid('agents-are-peers', 'An agent reaches the server over HTTP or WebSocket, like any external agent.', '^agents/', {
      path: '^(server|client)/',
    }),
    forbid('shared-stays-shared', 'shared/ runs in the browser and in Node: it imports no side.', '^shared/', {
      path: '^(client|server|agents|bench|tests)/',
    }),
    forbid('shared-without-node', 'shared/ touches no disk and no network: no Node built-ins.', '^shared/', { dependencyTypes: ['core'] }),
    forbid('no-circular-shared', undefined, '^shared/', { circular: true }),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
