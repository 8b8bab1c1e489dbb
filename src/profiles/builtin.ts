import type { LinePattern, Profile } from './types.js';

// The line shapes the seeds' engine prints; nh-ref speaks the same shapes under its own prefix.
// Field order inside the prompt row is fixed by the engine; whitespace between fields is not (it pads).
function engineShapes(): LinePattern[] {
  return [
    // Counted on every line, whatever else the line is: the portable tier is numerically correct, so its
    // announcement is the only thing that separates a pass on it from a pass on the native path.
    {
      role: 'referenceTier',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: ['tier', 'Tier', 'TIER'],
      regex: String.raw`reference[- ]tier(?:\]\s+op=(?<op>\S+)\s+device=(?<device>\S+))?`,
      flags: 'i',
      captures: { op: 'string', device: 'string' },
      exclusive: false,
    },
    {
      role: 'counters',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: 'ARM step',
      // Behind any prefix: vllm.cpp prints its arm trace as `[NH-DIAG] ARM step T=1 nd=1 np=0 …`
      // (scripts/nemotron-h-a2d1-gpu-gate.sh @ a7237f63), others under their own tag or a timestamp.
      regex: String.raw`(?:^|[\s\]])(?<label>ARM step)\s+(?<fields>.*)$`,
      captures: { label: 'string', fields: 'kv' },
    },
    {
      role: 'load',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: 'engine loaded in',
      regex: String.raw`^{prefix}\s+engine loaded in\s+(?<loadS>\S+?)\s*s\b`,
      captures: { loadS: 'float' },
    },
    {
      role: 'prompt',
      // A short row ends in `  <-- SHORT RUN, not a full row` (vllm.cpp examples/nemotron_h_gen/main.cpp); nh-ref
      // prints ` <-- SHORT RUN`. Whatever follows the marker is the engine's wording, not a second field.
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: 'prompt_tokens=',
      regex: String.raw`^{prefix}\s+prompt\s+(?<prompt>\d+):\s+prompt_tokens=(?<promptTokens>\d+)\s+generated=(?<generated>\d+)\s+golden_width=(?<goldenWidth>\d+)\s+compared=(?<compared>\d+)\s+matched=(?<matched>\d+)\s+wall=(?<wallS>\S+?)s(?:\s*<--\s*(?<short>SHORT RUN)\b.*)?\s*$`,
      captures: { prompt: 'int', promptTokens: 'int', generated: 'int', goldenWidth: 'int', compared: 'int', matched: 'int', wallS: 'float', short: 'string' },
    },
    {
      role: 'got',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: 'got:',
      regex: String.raw`^\s*(?:{prefix}\s+)?(?:prompt\s+(?<prompt>\d+):?\s+)?got:\s*(?<tokens>.*)$`,
      captures: { prompt: 'int', tokens: 'string' },
    },
    {
      role: 'exp',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: 'exp:',
      regex: String.raw`^\s*(?:{prefix}\s+)?(?:prompt\s+(?<prompt>\d+):?\s+)?exp:\s*(?<tokens>.*)$`,
      captures: { prompt: 'int', tokens: 'string' },
    },
    {
      role: 'tokenMatch',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: 'TOKEN MATCH',
      regex: String.raw`^{prefix}\s+TOKEN MATCH:\s+(?<matched>\d+)/(?<compared>\d+)\s+over\s+(?<prompts>\d+)\s+prompt\(s\)(?:\s+\(full rows=(?<fullRows>\d+),\s+short rows=(?<shortRows>\d+)(?:,\s+mode=(?<mode>[\w-]+))?\)|$)`,
      captures: { matched: 'int', compared: 'int', prompts: 'int', fullRows: 'int', shortRows: 'int', mode: 'string' },
    },
    {
      role: 'verdict',
      regex: String.raw`^(?:{prefix}\s+)?(?<kind>STRICT PASS|NEAR-TIE PASS|DIVERGENCE|REFUSING|SHORT)(?::\s*(?<detail>.*)|\s*$|\s+(?<rest>.*))`,
      captures: { kind: 'string', detail: 'string', rest: 'string' },
    },
    {
      role: 'featureArchs',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: 'target architectures',
      regex: String.raw`^--\s+\S+ target architectures:\s*(?<archs>.*)$`,
      captures: { archs: 'string' },
    },
    {
      role: 'feature',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: ' feature ',
      regex: String.raw`^--\s+(?<family>\S+(?:\s\S+)?) feature (?<cell>[\w.+-]+):\s+(?<state>ENABLED|DISABLED)(?:\s+for\s+\[(?<archs>[^\]]*)\])?(?:\s+\((?<reason>.*)\))?\s*$`,
      captures: { family: 'string', cell: 'string', state: 'string', archs: 'string', reason: 'string' },
    },
    {
      role: 'doctestCases',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: '[doctest]',
      regex: String.raw`^\[doctest\] test cases:\s*(?<total>\d+)\s*\|\s*(?<passed>\d+) passed\s*\|\s*(?<failed>\d+) failed\s*\|\s*(?:(?<skipped>\d+) skipped)?`,
      captures: { total: 'int', passed: 'int', failed: 'int', skipped: 'int' },
    },
    {
      role: 'doctestAssertions',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: '[doctest]',
      regex: String.raw`^\[doctest\] assertions:\s*(?<total>\d+)\s*\|\s*(?<passed>\d+) passed\s*\|\s*(?<failed>\d+) failed`,
      captures: { total: 'int', passed: 'int', failed: 'int' },
    },
    {
      role: 'doctestStatus',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: '[doctest]',
      regex: String.raw`^\[doctest\] Status:\s*(?<status>[A-Z]+)`,
      captures: { status: 'string' },
    },
    {
      role: 'doctestThrew',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: 'THREW exception',
      regex: String.raw`test case THREW exception`,
      captures: {},
    },
    {
      role: 'banner',
      // Stryker disable next-line StringLiteral,ArrayDeclaration: hints only make matching faster (an empty one is equivalent)
      hint: 'lib',
      regex: String.raw`^{prefix}\s+(?<text>lib\S+\s.*)$`,
      captures: { text: 'string' },
    },
  ];
}

// The patterns are built on access (a getter), not at import: cheap, immune to a caller mutating a shared
// array, and it lets mutation testing attribute each pattern to the tests that exercise it.
function builtin(name: string, prefix: string, description: string): Profile {
  return {
    name,
    prefix,
    description,
    get patterns(): LinePattern[] {
      return engineShapes();
    },
  };
}

// The seeds' engine (nemotron-h-gen).
export const NEMOTRON_H: Profile = builtin('nemotron-h', '[nemotron-h]', 'nemotron-h-gen, the seeds engine: [nemotron-h] lines, CMake feature table, doctest summaries, ARM counters');

// The reference engine in native/engine/: same shapes, its own prefix and reference-tier banner.
export const NH_REF: Profile = builtin('nh-ref', '[nh-ref]', 'the reference engine in native/engine: the nemotron-h line shapes under the [nh-ref] prefix');

export const BUILTIN_PROFILES: readonly Profile[] = [NEMOTRON_H, NH_REF];

// Names users can pass to --profile (the built-in ones).
export function listProfiles(): string[] {
  return BUILTIN_PROFILES.map((p) => p.name);
}
