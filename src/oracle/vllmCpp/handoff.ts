import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Golden } from '../../config/golden.js';
import { sha256 } from '../../io/hash.js';
import { NhGateError } from '../../errors.js';
import { serializeOracle } from './convert.js';

// The file a vllm.cpp driver is handed for a golden: the imported original when there is one (byte for
// byte what the engine's users committed), else one written in the engine's format from the golden.
export type OracleHandoff =
  | { origin: 'original'; path: string; sha256: string }
  | { origin: 'written'; text: string; sha256: string };

// Decides the handoff for golden.json at goldenPath. An original that is missing or no longer has the
// sha256 its golden recorded is refused: the tokens nh-gate judges against would not be the engine's.
export function oracleHandoff(g: Golden, goldenPath: string): OracleHandoff {
  if (!g.source) {
    const text = serializeOracle(g);
    return { origin: 'written', text, sha256: sha256(text) };
  }
  const path = join(dirname(goldenPath), g.source.file);
  if (!existsSync(path)) {
    throw new NhGateError('BAD_INPUT', `${goldenPath}: source.file: golden '${g.name}' was imported from an oracle.json, but ${path} is missing`, `re-import it (nh-gate golden import --format ${g.source.format} FILE --name ${g.name}) and accept it`);
  }
  const got = sha256(readFileSync(path));
  if (got !== g.source.sha256) {
    throw new NhGateError('BAD_INPUT', `${path}: sha256 ${got} is not the ${g.source.sha256} that ${goldenPath} recorded at import (the file changed after accept)`, `re-import it (nh-gate golden import --format ${g.source.format} ${path} --name ${g.name}), review the diff, and accept it`);
  }
  return { origin: 'original', path, sha256: got };
}
