import * as z from 'zod';
import { count, MAX_INT32, seconds } from './bounds.js';
import { regexError } from './regex.js';
import { NhGateError } from '../errors.js';
import { didYouMean } from './nearest.js';
import { ServeSchema } from './serve.js';

// argv arrays only (never a shell string); elements may hold {placeholders}: {root} {cwd} {sourceDir} {buildDir} {arch} {jobs} {checkpoint} {golden} {events} {runDir}.
const Argv = z.array(z.string().min(1)).min(1);

// One environment flag that selects a code path inside the SAME binary.
export const FlagSchema = z.strictObject({
  env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name in UPPER_SNAKE_CASE'),
  on: z.string(),
  // null: the off arm leaves the variable UNSET (ggml reads GGML_CUDA_DISABLE_GRAPHS by presence, so "0" would be on).
  off: z.string().nullable(),
  // Declared values for `--flag NAME=V1,V2` (e.g. thread counts); a value not listed here is refused.
  values: z.array(z.string().min(1)).optional(),
  default: z.string().describe('on, off, or one of values'),
  description: z.string().optional(),
  // Feature cells that must be ENABLED when this flag is on (e.g. the device arm needs the CUDA cells).
  requiresCells: z.array(z.string()).default([]),
  // Whether the "on" arm claims device execution (then reference-tier lines void the leg).
  deviceArm: z.boolean().default(false),
}).refine((f) => f.default === 'on' || f.default === 'off' || (f.values ?? []).includes(f.default), { message: 'default must be on, off or one of the declared values', path: ['default'] });

export const ProbeSchema = z.strictObject({
  name: z.string(),
  argv: Argv,
  expect: z.string().optional().describe('regex the probe output must match').superRefine((v, ctx) => {
    const err = v === undefined ? null : regexError(v, 'm');
    if (err) ctx.addIssue({ code: 'custom', message: `does not compile: ${err}` });
  }),
  when: z.enum(['always', 'gpu']).default('always'),
});

// The test frameworks whose output nh-gate reads per case (src/mutate/suite/).
export const SUITE_FORMATS = ['doctest', 'gtest', 'catch2', 'ctest'] as const;
export type SuiteFormat = (typeof SUITE_FORMATS)[number];

export const SuiteSchema = z.strictObject({
  name: z.string(),
  argv: Argv,
  filterArgv: z.array(z.string()).optional().describe("argv appended for a case filter; {filter} is replaced (default per kind: doctest --test-case={filter}, gtest --gtest_filter={filter}, catch2 {filter}, ctest -R {filter})"),
  kind: z.enum(SUITE_FORMATS).optional().describe('the suite format: doctest, gtest, catch2 or ctest; absent: detected from its output where only one format matches'),
  reportArgv: z.array(z.string()).optional().describe('argv appended so the suite writes a structured report to {report} (JUnit XML, GoogleTest JSON, Catch2 or doctest XML); absent: its console output is read'),
  targets: z.array(z.string().min(1)).min(1).optional().describe('the CMake targets that build this suite: a mutant builds only these (cmake --build {buildDir} --target ...); absent: the recipe build'),
  binaries: z.array(z.string().min(1)).min(1).optional().describe('the files whose sha256 proves a mutant reached the suite (default: argv[0]); a ctest suite names its test executables'),
  skipMessage: z.string().min(1).optional().describe("regex over a case's printed messages that means the case took its skip path (e.g. a GPU case on a box without one): the case is read as skipped").superRefine((v, ctx) => {
    const err = v === undefined ? null : regexError(v);
    if (err) ctx.addIssue({ code: 'custom', message: `does not compile: ${err}` });
  }),
  gpuCases: z.array(z.string()).default([]).describe('case names that take a skip path without a GPU'),
  cpuOnlyAssertions: count(0, MAX_INT32).optional().describe('assertion count when the GPU cases skip: equal on a GPU run means GPU_SKIPPED'),
});

// A sanitizer build of the recipe's suites (ASan + UBSan): survivors of the relational, bounds and index
// operators are re-run there, and a survivor the sanitizer catches is reported apart from CAUGHT.
export const SanitizerSchema = z.strictObject({
  buildDir: z.string().min(1).describe('its own build dir (may use {arch}), never the recipe buildDir'),
  configureArgv: z.array(z.string()).min(1).describe('configure argv appended for the sanitizer build, e.g. -DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -fno-sanitize-recover=all'),
  env: z.record(z.string(), z.string()).default({}).describe('environment of the sanitized suite runs, e.g. ASAN_OPTIONS'),
  archs: z.array(z.string().min(1)).min(1).default(['cpu']).describe('the archs whose mutate runs re-judge survivors here (host sanitizers: cpu by default)'),
});

export const BaselineSchema = z.strictObject({
  name: z.string(),
  quantity: z.enum(['perOutputToken', 'busyFraction']),
  value: z.number().nonnegative().max(1e9),
  unit: z.string(),
  arch: z.string().describe('the silicon the baseline was taken on, e.g. 121a'),
  source: z.string(),
  // How a busy baseline was counted: its figure is only compared with a run figure counted the same way.
  method: z.enum(['timeWeighted', 'nonzeroShare']).optional().describe('busyFraction only: time-weighted mean or the seeds nonzero-sample share'),
});

// A prerequisite the build needs, recognised by its symptom in a failed configure or build.
export const PrerequisiteSchema = z.strictObject({
  name: z.string().min(1),
  match: z.string().min(1).describe('regex over the failed step\'s output that means this prerequisite is missing').superRefine((v, ctx) => {
    const err = regexError(v);
    if (err) ctx.addIssue({ code: 'custom', message: `does not compile: ${err}` });
  }),
  fix: z.string().min(1).describe('what the user does about it, e.g. apt-get install doctest-dev'),
});

export const ArchBuildSchema = z.strictObject({
  configureArgv: z.array(z.string()).default([]).describe('extra configure argv for this arch'),
  requiredCells: z.array(z.string()).default([]).describe('feature cells that must read ENABLED for this arch'),
});

export const RecipeSchema = z.strictObject({
  schemaVersion: z.literal(1),
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
  description: z.string().optional(),
  profile: z.string().describe('name of an output profile (nemotron-h, nh-ref) or a path to a profile JSON'),
  sourceDir: z.string(),
  buildDir: z.string().describe('may use {arch}'),
  configure: Argv,
  build: Argv,
  archs: z.record(z.string(), ArchBuildSchema).default({}).describe('keyed by arch claim: cpu, 90, 90a, 121a, 110 …'),
  outputs: z.array(z.string()).default([]).describe('declared build outputs whose sha256 is recorded'),
  probes: z.array(ProbeSchema).default([]),
  prerequisites: z.array(PrerequisiteSchema).default([]),
  suiteConfigureArgv: z.array(z.string()).default([]).describe('configure argv appended when the command runs the suites (mutate, suite gates)'),
  prepare: z.array(Argv).default([]).describe('commands run after build, before the driver (e.g. generate the checkpoint)'),
  driver: z.strictObject({
    argv: Argv,
    binary: z.string().describe('the binary whose sha256 identifies a leg'),
    goldenArgv: z.array(z.string()).default([]).describe('argv appended when a golden is given; {golden} is replaced'),
    // The golden file format the driver parses: nh-gate's golden.json, or the engine's oracle.json (vllm.cpp).
    goldenFormat: z.enum(['nh-gate', 'vllm-cpp-oracle']).default('nh-gate').describe('what {golden} points at: nh-gate golden.json, or a vllm.cpp oracle.json'),
    eventsArgv: z.array(z.string()).default([]).describe('argv appended to request the JSONL event stream; {events} is replaced'),
    modeArgv: z.record(z.string(), z.array(z.string())).default({}),
    // argv appended to make the driver speak the oracle protocol (request on stdin, answer on stdout):
    // `golden capture --recipe R` then uses the engine as its own oracle and labels the golden a regression golden.
    oracleArgv: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).default({}),
    timeoutS: seconds().default(600),
  }),
  flags: z.record(z.string(), FlagSchema).default({}),
  suites: z.array(SuiteSchema).default([]),
  sanitizer: SanitizerSchema.optional().describe('a sanitizer build of the suites (mutate re-judges relational/bounds/index survivors there)'),
  baselines: z.array(BaselineSchema).default([]),
  // SPEC §7: a3 compares its per-token figure with the newest earlier a3 of this recipe on the same silicon
  // key, found in the ledger (not a constant someone typed); absent → no such comparison.
  ledgerBaseline: z.strictObject({ quantity: z.literal('perOutputToken') }).optional().describe('a3: compare per-token with the newest earlier a3 of this recipe on this silicon, from the ledger'),
  defaultGolden: z.string().optional(),
  // nh-gate serve: how to start the engine's server and what each request is (src/config/serve.ts).
  serve: ServeSchema.optional(),
  goldenProvider: z.string().optional().describe('how the golden is produced, for provenance'),
});

export type Recipe = z.infer<typeof RecipeSchema>;
export type RecipeFlag = z.infer<typeof FlagSchema>;
export type Baseline = z.infer<typeof BaselineSchema>;
export type RecipeSuite = z.infer<typeof SuiteSchema>;
export type RecipeSanitizer = z.infer<typeof SanitizerSchema>;

// A recipe's flag by its short name; an unknown name is UNKNOWN_FLAG naming the nearest declared flag
// (`--flag threads` → THREADS) and listing them all. `where` names the recipe file when known.
export function declaredFlag(recipe: Recipe, name: string, where?: string): RecipeFlag {
  const f = recipe.flags[name];
  if (f) return f;
  const known = Object.keys(recipe.flags);
  throw new NhGateError('UNKNOWN_FLAG', `flag '${name}' is not declared by recipe '${recipe.name}'${where ? ` (${where})` : ''}${didYouMean(name, known)}`, known.length ? `use one of: ${known.join(', ')}` : 'this recipe declares no flags');
}
