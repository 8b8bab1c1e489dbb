import { readFileSync } from 'node:fs';

// nh-gate's version, read once from package.json (the one place it is written).
export const NH_GATE_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

// The tool identity every result document carries.
export const TOOL = { name: 'nh-gate' as const, version: NH_GATE_VERSION };
