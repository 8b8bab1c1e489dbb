import { InvalidArgumentError, Option, type Command } from 'commander';
import { runAction } from '../run.js';
import { NhGateError } from '../../errors.js';
import { parseSlo } from '../../serve/slo.js';
import type { LoadShape, Slo } from '../../serve/types.js';

interface ServeCliOptions {
  recipe?: string;
  golden?: string;
  rate?: number;
  concurrency?: number;
  sweep?: number[];
  requests: number;
  duration: number;
  maxRequests?: number;
  slo?: Slo;
  seed: number;
  requestTimeout: number;
  maxLateMs: number;
  slots?: number;
  arch?: string;
  jobs: number;
  resultsDir: string;
  json?: boolean;
}

// commander argParsers: a bad value is a usage error (exit 2) naming the option and what it takes.
const positive = (what: string) => (v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${v} is not a positive ${what}`);
  return n;
};
const atLeastZero = (v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`${v} is not a number of seconds ≥ 0`);
  return n;
};
const count = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${v} is not a positive integer`);
  return n;
};
const seed = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${v} is not an integer seed ≥ 0`);
  return n;
};
const rates = (v: string): number[] => {
  const list = v.split(',').map((x) => positive('rate (requests/s)')(x.trim()));
  if (list.length < 2) throw new InvalidArgumentError('a sweep needs at least two rates, e.g. 0.5,1,2,4');
  if (new Set(list).size !== list.length) throw new InvalidArgumentError(`${v} repeats a rate`);
  return [...list].sort((a, b) => a - b);
};
const slo = (v: string): Slo => {
  const p = parseSlo(v);
  if (!p.ok) throw new InvalidArgumentError(p.why);
  return p.slo;
};

// The loads the options ask for: one rate, one concurrency, or a sweep of rates (exactly one of them).
export function loadsOf(o: Pick<ServeCliOptions, 'rate' | 'concurrency' | 'sweep' | 'seed'>): LoadShape[] {
  if (o.rate !== undefined) return [{ kind: 'rate', ratePerS: o.rate, seed: o.seed }];
  if (o.concurrency !== undefined) return [{ kind: 'concurrency', inFlight: o.concurrency }];
  if (o.sweep !== undefined) return o.sweep.map((ratePerS) => ({ kind: 'rate', ratePerS, seed: o.seed }));
  throw new NhGateError('USAGE', 'nh-gate serve needs a load: --rate R, --concurrency C or --sweep R1,R2,…', 'e.g. nh-gate serve --recipe llama-cpp --concurrency 4 --requests 16');
}

// Registers `nh-gate serve`: the engine's server under load, every served token checked against the golden.
export function register(program: Command): void {
  program
    .command('serve')
    .description("start the recipe's server once, send the golden's prompts under load (an open-loop rate, a fixed concurrency, or a sweep of rates), judge every response's tokens, and report TTFT, TPOT, ITL and end-to-end percentiles, throughput and goodput with their terms")
    .option('--recipe <name|file>', 'recipe with a serve block', 'llama-cpp')
    .option('--golden <name|dir|file>', "golden whose prompts are sent (default: the recipe's defaultGolden)")
    .addOption(new Option('--rate <r>', 'open-loop Poisson arrivals at r requests/s (seeded)').argParser(positive('rate (requests/s)')).conflicts(['concurrency', 'sweep']))
    .addOption(new Option('--concurrency <c>', 'keep c requests in flight (closed loop)').argParser(count).conflicts(['sweep']))
    .addOption(new Option('--sweep <rates>', 'a sweep of open-loop rates, e.g. 0.5,1,2,4: one load per rate against one server, the knee reported').argParser(rates))
    .addOption(new Option('--requests <n>', 'minimum requests per load (also its validity minimum)').argParser(count).makeOptionMandatory())
    .addOption(new Option('--duration <s>', 'minimum seconds per load: sending goes on until both minima are met').argParser(atLeastZero).default(0))
    .addOption(new Option('--max-requests <n>', 'cap on requests per load (default: --requests without --duration, else 10000)').argParser(count))
    .addOption(new Option('--slo <objectives>', 'goodput objectives, e.g. ttft=200ms,tpot=50ms (also e2e=…)').argParser(slo))
    .addOption(new Option('--seed <n>', 'seed of the arrival schedule').argParser(seed).default(1))
    .addOption(new Option('--request-timeout <s>', 'per-request limit: past it the stream is closed and the request counted as timed out').argParser(positive('number of seconds')).default(120))
    .addOption(new Option('--max-late-ms <ms>', 'open loop: a send later than this behind its schedule makes the run INVALID (CLIENT_BEHIND)').argParser(positive('number of milliseconds')).default(100))
    .addOption(new Option('--slots <n>', "server parallel slots (default: the concurrency, else the recipe's serve.slots)").argParser(count))
    .option('--arch <arch>', "the target silicon claim (default: this host's)")
    .addOption(new Option('--jobs <n>', 'build parallelism').argParser(count).default(2))
    .option('--results-dir <dir>', 'where runs/ and ledger.jsonl go', '.nh-gate')
    .option('--json', 'print result.json on stdout')
    .action((opts: ServeCliOptions) =>
      runAction(async () => {
        const loads = loadsOf(opts);
        const maxRequests = opts.maxRequests ?? (opts.duration > 0 ? Math.max(10000, opts.requests) : opts.requests);
        if (maxRequests < opts.requests) throw new NhGateError('USAGE', `--max-requests ${maxRequests} is below --requests ${opts.requests}`, 'raise --max-requests or lower --requests');
        const [{ loadInputs }, { runServe }, { realDeps }, { runOutput }] = await Promise.all([
          import('../../gates/setup.js'), import('../../serve/run.js'), import('../../gates/deps.js'), import('../report.js'),
        ]);
        const output = await runOutput({ json: opts.json });
        const inputs = loadInputs({ command: 'serve', recipe: opts.recipe, golden: opts.golden });
        const out = await runServe({
          argv: process.argv.slice(2), inputs, arch: opts.arch, jobs: opts.jobs, resultsBase: opts.resultsDir, loads,
          stop: { minRequests: opts.requests, minDurationS: opts.duration, maxRequests },
          limits: { minRequests: opts.requests, minDurationS: opts.duration, maxLateS: opts.maxLateMs / 1e3 },
          slo: opts.slo ?? null, requestTimeoutS: opts.requestTimeout, slots: opts.slots,
        }, output.attach(await realDeps()));
        output.finish(out.result);
        return out.exitClass;
      }),
    );
}
