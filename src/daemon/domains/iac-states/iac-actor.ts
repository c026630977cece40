/**
 * Who acts on a state: the audit's subject, and for a run token its run and step (the lock records
 * them). A run token acts only on its one state; the routes check that before the service runs.
 */
export interface IacActor {
  readonly subject: string | null;
  readonly runToken?: { readonly tokenId: string; readonly runId: string; readonly stepId: string };
}
