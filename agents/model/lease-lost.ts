/** The lease of the run is gone (run out, or taken back): the agent stops at once [MODEL4]. */
export class LeaseLost extends Error {}
