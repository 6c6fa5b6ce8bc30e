import type { BffSession } from './http.ts';
import type { Started } from './processes.ts';

/** How the run was asked for: `--smoke` is one iteration with small counts, budgets not enforced. */
export interface BenchOptions {
  smoke: boolean;
  root: string;
  /** Scratch directory of this run (data directories, builds); removed at the end. */
  tmpDir: string;
  log: (line: string) => void;
}

/** A command the bench submitted through the BFF, to read back and poll. */
export interface BenchCommand {
  deviceId: string;
  commandId: string;
}

/** The running stack: sandbox (fixture `large`) and BFF, each in its own process. */
export interface Stack {
  sandboxOrigin: string;
  bffOrigin: string;
  session: BffSession;
  /** 20 commands on the demo site PLANT-EU-100, windows days ahead, still `received`. */
  commands: BenchCommand[];
  /**
   * The BFF started with `STATUS_REUSE_MS=0` (no status answer reused once sent), with its own
   * session, and a few thousand distinct commands, so the proxy figures measure the proxy rather
   * than the 1 s status reuse. Only when the BFF group runs.
   */
  bare?: {
    bffOrigin: string;
    session: BffSession;
    commands: BenchCommand[];
    /** Its process ID, for its CPU time. */
    pid?: number;
    /** Its process when `BENCH_BFF_CPU_PROFILE` asks for a CPU profile (SIGUSR2 toggles it). */
    profiled?: Started;
  };
  /**
   * The reference pass-through proxy (`bench/servers/reference-proxy.ts`, no session, no
   * guards) to the EU sandbox, whose added latency and throughput the BFF's are compared with.
   * Started with `bare`.
   */
  reference?: {
    origin: string;
    /** Its process ID, for its CPU time. */
    pid?: number;
  };
  /**
   * The Fastify floor (`bench/servers/fastify-floor.ts`): Fastify answering the status path with
   * a fixed body, what the framework and the socket cost alone. Started with `bare`.
   */
  floorOrigin?: string;
}
