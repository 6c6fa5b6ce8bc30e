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
  /** The BFF's process ID, for its CPU time. */
  bffPid?: number;
  /**
   * Distinct commands (a few thousand, put straight into the sandbox) the BFF's read model knows,
   * so the proxy figures read as many commands as a fleet's browsers would, each answered from the
   * read model. Only when the BFF group runs.
   */
  distinct?: {
    commands: BenchCommand[];
    /** The BFF's process when `BENCH_BFF_CPU_PROFILE` asks for a CPU profile (SIGUSR2 toggles it). */
    profiled?: Started;
  };
  /**
   * The reference pass-through proxy (`bench/servers/reference-proxy.ts`, no session, no
   * guards) to the EU sandbox, whose added latency and throughput the BFF's are compared with.
   * Started with `distinct`.
   */
  reference?: {
    origin: string;
    /** Its process ID, for its CPU time. */
    pid?: number;
  };
  /**
   * The Fastify floor (`bench/servers/fastify-floor.ts`): Fastify answering the status path with
   * a fixed body, what the framework and the socket cost alone. Started with `distinct`.
   */
  floorOrigin?: string;
}
