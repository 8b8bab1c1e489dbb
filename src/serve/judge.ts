import type { Golden } from '../config/golden.js';
import type { PromptJudgement } from '../results/types.js';
import type { Quantity } from '../quantity/types.js';
import { refused } from '../quantity/make.js';
import { classify } from '../gates/leg/tokens.js';
import { reason, type Reason } from '../verdict/reasons.js';
import type { ExitClass, TokenWord, VerdictWord } from '../verdict/words.js';
import { VERDICT_CLASS, worstTokenWord } from '../verdict/words.js';
import type { RequestObservation } from './types.js';
import type { Validity } from './validity.js';

// Every served response against the golden, by the token judge a3 uses (gates/leg/tokens.ts: STRICT, a
// NEAR-TIE only where the golden licenses it, DIVERGENCE), then the run's verdict: wrong tokens fail the run
// and take its figures with them (a speed measured on wrong tokens is void); otherwise it is VALID or INVALID
// by the limits it was held to.

export interface RequestJudgement extends PromptJudgement {
  request: number;
  finished: boolean;
}

export interface ServeTokens {
  word: TokenWord;
  requests: RequestJudgement[];
  compared: number;
  matched: number;
  // Requests whose tokens diverged from the golden (request indexes, in order).
  wrong: number[];
  reasons: Reason[];
}

const WORD_OF: Record<PromptJudgement['status'], TokenWord> = { match: 'STRICT PASS', 'near-tie': 'NEAR-TIE PASS', divergence: 'DIVERGENCE', short: 'SHORT' };

// One response's ids against its golden row.
export function judgeRequest(golden: Golden, r: RequestObservation): RequestJudgement {
  const gp = golden.prompts.find((p) => p.id === r.prompt);
  if (!gp) throw new Error(`request ${r.index} carried prompt ${r.prompt}, which golden ${golden.name} does not have`);
  return { ...classify(golden, gp, r.ids, null), request: r.index, finished: r.end === 'done' };
}

// The sent requests judged; an unfinished request is judged on the tokens it got (a wrong prefix is wrong),
// its shortness left to the validity check that counts it.
export function judgeRequests(golden: Golden, requests: readonly RequestObservation[]): ServeTokens {
  const judged = requests.filter((r) => r.sentS !== null).map((r) => judgeRequest(golden, r));
  const words = judged.filter((j) => j.finished || j.status === 'divergence').map((j) => WORD_OF[j.status]);
  const compared = judged.reduce((s, j) => s + j.compared, 0);
  const reasons: Reason[] = [];
  if (compared === 0) reasons.push(reason('NO_TOKENS', 'no served token was compared — there is nothing to judge'));
  const word: TokenWord = compared === 0 ? 'VOID' : worstTokenWord(words);
  return { word, requests: judged, compared, matched: judged.reduce((s, j) => s + j.matched, 0), wrong: judged.filter((j) => j.status === 'divergence').map((j) => j.request), reasons };
}

// The wrong requests by name: request, prompt, position, got/exp and the golden's margin there.
export function describeWrong(t: ServeTokens, limit = 10): string {
  const wrong = t.requests.filter((j) => j.status === 'divergence');
  const parts = wrong.slice(0, limit).map((j) => {
    const m = j.firstMismatch!;
    return `request ${j.request} (prompt ${j.prompt}) position ${m.position}: got ${m.got}, expected ${m.exp}${m.marginNats !== null ? ` (golden top-2 margin ${m.marginNats.toFixed(4)} nats)` : ''}`;
  });
  return `${wrong.length} of ${t.requests.length} request(s) served wrong tokens: ${parts.join('; ')}${wrong.length > limit ? '; …' : ''}`;
}

// Every figure refused when any response was wrong: the failing requests are named in each.
export function withholdFigures(figures: Record<string, Quantity>, t: ServeTokens): Record<string, Quantity> {
  if (t.wrong.length === 0) return figures;
  const why = `request(s) ${t.wrong.slice(0, 10).join(', ')}${t.wrong.length > 10 ? ' …' : ''} served wrong tokens — a speed measured on wrong tokens is void`;
  return Object.fromEntries(Object.entries(figures).map(([k, q]) => [k, refused(q.name, 'WRONG_TOKENS', why)]));
}

export interface ServeVerdict {
  word: VerdictWord;
  exitClass: ExitClass;
  reasons: Reason[];
}

// Wrong tokens fail the run (DIVERGENCE); a short response is SHORT; nothing compared is VOID; otherwise the
// limits decide: VALID, or INVALID with each reason. Validity reasons follow a token failure, never hide it.
export function serveVerdict(t: ServeTokens, v: Validity): ServeVerdict {
  const pick = (word: VerdictWord, first: Reason[]): ServeVerdict => ({ word, exitClass: VERDICT_CLASS[word], reasons: [...first, ...v.reasons] });
  if (t.word === 'DIVERGENCE') return pick('DIVERGENCE', [reason('WRONG_TOKENS', `${describeWrong(t)} — the load is INVALID as a performance result: its figures are withheld`)]);
  if (t.word === 'SHORT') {
    const short = t.requests.filter((j) => j.finished && j.status === 'short');
    return pick('SHORT', [reason('PARTIAL', `${short.length} finished request(s) returned fewer tokens than the golden holds: request(s) ${short.slice(0, 10).map((j) => `${j.request} (${j.generated}/${j.goldenWidth})`).join(', ')}`)]);
  }
  if (t.word === 'VOID') return pick('VOID', t.reasons);
  return pick(v.valid ? 'VALID' : 'INVALID', []);
}
