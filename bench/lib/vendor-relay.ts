import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { API_BASE_PATH } from '#sandbox/vendor/schemas.ts';

/** One vendor call about devices' commands, as the relay saw it. */
export interface RelayedDeviceCall {
  /** When the relay received it (`Date.now()`, ms, wall clock). */
  atMs: number;
  /**
   * When the sandbox answered it, on the sandbox's clock (epoch ms: the wall clock plus what the
   * bench moved it by, {@link VendorRelay.clockMovedBy}). The sandbox counts a call against its
   * limit when the call arrives, after any latency it injects and just before it answers
   * (src/sandbox/http/faults.ts), so on a slow wire this, not `atMs`, is when the vendor counted it.
   */
  answeredAtMs: number;
  method: string;
  /** The route, device and command IDs replaced (`GET /devices/:deviceId/commands/:commandId`). */
  route: string;
  deviceIds: string[];
  /** The vendor's answer status. */
  status: number;
}

/** A relay between the BFF and the sandbox that records each device call. */
export interface VendorRelay {
  /** The relay's origin: the BFF's upstream URLs are this with the sandbox's paths. */
  origin: string;
  calls: RelayedDeviceCall[];
  /** Sets the sandbox to forward to; until then every request is answered 503. */
  forwardTo(sandboxOrigin: string): void;
  /**
   * Tells the relay the bench moved the sandbox clock forward by `advanceMs` (admin API), so the
   * calls' `answeredAtMs` stay on the sandbox's clock. Call it right after the move, while no
   * device call is on its way.
   */
  clockMovedBy(advanceMs: number): void;
  /** Requests received and not yet answered. */
  inFlight(): number;
  close(): Promise<void>;
}

const PREFIX = new RegExp(`^/[a-z]+${API_BASE_PATH.replace(/\//g, '\\/')}`);

/**
 * The devices a vendor call spends a slot of (docs/upstream.md, Rate limit, "What counts"): a
 * submission, history, status or cancel names one in its path; a batch names its devices in the
 * body. A batch cancel names none (its devices are the batch's), the catalog calls (sites,
 * devices, bindings, token) spend none: both are `undefined`, not recorded.
 */
function deviceCallOf(
  method: string,
  path: string,
  body: Buffer,
): { route: string; deviceIds: string[] } | undefined {
  const route = path.split('?')[0]?.replace(PREFIX, '') ?? '';
  const one = /^\/(device\/[^/]+\/commands|devices\/[^/]+\/commands\/[^/]+(\/cancel)?)$/.exec(
    route,
  );
  if (one) {
    const deviceId = decodeURIComponent(route.split('/')[2] ?? '');
    const shape = route
      .replace(/^\/device\/[^/]+/, '/device/:deviceId')
      .replace(/^\/devices\/[^/]+\/commands\/[^/]+/, '/devices/:deviceId/commands/:commandId');
    return { route: `${method} ${shape}`, deviceIds: [deviceId] };
  }
  if (method === 'POST' && route === '/devices/commands') {
    try {
      const devices = (JSON.parse(body.toString()) as { devices?: unknown }).devices;
      return {
        route: `${method} ${route}`,
        deviceIds: Array.isArray(devices) ? devices.map(String) : [],
      };
    } catch {
      return { route: `${method} ${route}`, deviceIds: [] };
    }
  }
  return undefined;
}

async function readBody(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Starts a relay on 127.0.0.1 that forwards every request unchanged to the sandbox named by
 * `forwardTo` (so the BFF can start alongside the sandbox) and records each call about devices'
 * commands with its devices, time and answer status, so the bench can count one device's calls
 * in any rolling minute (the sandbox's own stats count only totals per device).
 */
export async function startVendorRelay(): Promise<VendorRelay> {
  const calls: RelayedDeviceCall[] = [];
  let sandboxOrigin: string | undefined;
  let clockOffsetMs = 0;
  let inFlight = 0;
  const server = createServer((incoming, outgoing) => {
    inFlight++;
    outgoing.once('close', () => inFlight--);
    void (async () => {
      const atMs = Date.now();
      const method = incoming.method ?? 'GET';
      const path = incoming.url ?? '/';
      try {
        if (!sandboxOrigin) throw new Error('the sandbox is not ready yet');
        const body = await readBody(incoming);
        const headers = { ...incoming.headers };
        delete headers.host;
        delete headers.connection;
        delete headers['content-length'];
        delete headers['transfer-encoding'];
        const answer = await request(`${sandboxOrigin}${path}`, {
          method: method as 'GET',
          headers,
          body: body.length > 0 ? body : null,
        });
        const answeredAtMs = Date.now() + clockOffsetMs;
        const text = Buffer.from(await answer.body.arrayBuffer());
        const call = deviceCallOf(method, path, body);
        if (call)
          calls.push({
            atMs,
            answeredAtMs,
            method,
            ...call,
            status: answer.statusCode,
          });
        const forwarded: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers))
          if (
            value !== undefined &&
            !['connection', 'transfer-encoding', 'content-length', 'keep-alive'].includes(name)
          )
            forwarded[name] = value;
        outgoing.writeHead(answer.statusCode, forwarded);
        outgoing.end(text);
      } catch (error) {
        outgoing.writeHead(sandboxOrigin ? 502 : 503, { 'content-type': 'text/plain' });
        outgoing.end(`relay: ${String(error)}`);
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    calls,
    forwardTo: (origin) => {
      sandboxOrigin = origin;
    },
    clockMovedBy: (advanceMs) => {
      clockOffsetMs += advanceMs;
    },
    inFlight: () => inFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
