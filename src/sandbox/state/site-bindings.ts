import type { ClientIdentity } from './client-identity.ts';
import type { BindingEntity } from './persistence.ts';

/**
 * Which sites each client has bound (docs/upstream.md, Sites), with a sequence number that keeps
 * each client's sites in bind order. The sequence is shared by all clients and never reused. A
 * site is bound to one client at a time.
 */
export class SiteBindings {
  private bindings = new Map<string, Map<string, number>>();
  private bindingSeq = 0;

  /** Whether `siteId` is bound to the client. */
  isBound(client: ClientIdentity, siteId: string): boolean {
    return this.bindings.get(client.clientId)?.has(siteId) ?? false;
  }

  /** The client that has `siteId` bound, if any. */
  holderOf(siteId: string): string | undefined {
    for (const [clientId, sites] of this.bindings) if (sites.has(siteId)) return clientId;
    return undefined;
  }

  /** The IDs of the sites bound to the client, in bind order. */
  siteIdsInBindOrder(clientId: string): string[] {
    return [...(this.bindings.get(clientId) ?? new Map<string, number>()).entries()]
      .sort((a, b) => a[1] - b[1])
      .map(([siteId]) => siteId);
  }

  /** Binds a site; the new binding, or `undefined` when it was bound already. */
  bind(clientId: string, siteId: string): BindingEntity | undefined {
    const bound = this.bindingsOf(clientId);
    if (bound.has(siteId)) return undefined;
    this.bindingSeq += 1;
    bound.set(siteId, this.bindingSeq);
    return { clientId, siteId, seq: this.bindingSeq };
  }

  /** Unbinds a site; false when it was not bound. */
  unbind(clientId: string, siteId: string): boolean {
    return this.bindingsOf(clientId).delete(siteId);
  }

  /** Replaces the bindings with persisted ones; new bindings continue after the highest `seq`. */
  adopt(bindings: BindingEntity[]): void {
    this.bindings = new Map();
    this.bindingSeq = 0;
    for (const binding of bindings) {
      this.bindingsOf(binding.clientId).set(binding.siteId, binding.seq);
      this.bindingSeq = Math.max(this.bindingSeq, binding.seq);
    }
  }

  private bindingsOf(clientId: string): Map<string, number> {
    let bound = this.bindings.get(clientId);
    if (!bound) {
      bound = new Map();
      this.bindings.set(clientId, bound);
    }
    return bound;
  }
}
