/**
 * The order in which Hocuspocus runs the hooks of Tandem's extensions: it sorts them by
 * `priority`, higher first (100 when none is given), so their place in server/index.ts's list
 * does not matter. Each line says why an extension sits where it does. Where two extensions have
 * no hook in common their relative order is free; they still get distinct values, so that adding
 * a hook to one never depends on the list's order.
 */
export const extensionPriority = {
  /** Redis (server/extensions/shared-documents.ts), first: one instance at a time stores a document, and its deferral of an unload runs before anyone's `beforeUnloadDocument`. */
  sharedDocuments: 1000,
  /** Every later hook reads the principal and the parts it may write from the connection's context. */
  auth: 900,
  /** Counts sockets per principal (an `onAuthenticate` of its own): needs Auth's principal, refuses before any work. */
  socketLimits: 890,
  /** Records a connection once it is accepted, before any of its messages. */
  auditConnections: 880,
  /** An update of the wrong shape reaches neither the notes guard nor the logs (SHAPE4). */
  shapeGuard: 800,
  /** Claims the client ids an update writes before it is applied or logged (WHO2). */
  authorshipGuard: 790,
  /** The last to refuse a sync message in `beforeSync`: nothing after it may refuse what it let through. */
  notesGuard: 690,
  /** Logs a client's update after every refusal (SQLite: flushes a failed append; PostgreSQL: appends it, SCALE2), and loads before the hooks that read the stored state. */
  persistence: 680,
  /** Owns the presence entries of a connection (PRES1–3): alone on `beforeHandleAwareness`. */
  presenceGuard: 600,
  /** After the load hooks that apply the stored state: clears what a notes document holds outside its map (NOTES11). */
  notesStrays: 590,
  /** After the load hooks that apply the stored state: gives the nested blocks of older texts their ids (OP12). */
  nestedIds: 585,
  /** After the persistence's `onStoreDocument`: reads the state they stored. */
  docMetadata: 500,
  /** After the persistence's `onStoreDocument`: indexes the text they stored (CAT2). */
  searchIndexing: 495,
  /** After the load: indexes the annotations the stored state holds. */
  annotationIndex: 490,
  /** After the load: fills the runs mirror from the store. */
  runMirrorLoad: 480,
  /** Alone on `onCreateDocument`, whose last answer wins (its garbage-collection filter). */
  runGc: 470,
  /** Counts the writers of a text document on `onChange`, after everything that could refuse the change. */
  textWriters: 460,
  /** Starts an automatic version on a person's change (`onChange`), after everything that could refuse it (HIST2). */
  autoVersions: 455,
  /** Alone on `onStateless`. */
  agentStateless: 450,
  /** The last with a `beforeHandleMessage` hook: it answers a substituted sync step 1 where Hocuspocus would, after every such hook (DUR6). */
  freshSync: 10,
} as const;
