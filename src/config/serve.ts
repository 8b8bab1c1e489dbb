import * as z from 'zod';
import { count, seconds } from './bounds.js';

// A recipe's `serve` block (nh-gate serve, docs/serve.md): how to start the engine's server, how to know it is
// ready, and the request each golden prompt becomes. The harness picks a free loopback port ({port}) and the
// number of parallel slots ({slots}); the argv must bind 127.0.0.1, since the harness connects only there.

// Where a value of the request body comes from: the prompt's token ids, or the golden's new-token count.
export const BODY_PLACEHOLDERS = { '{promptTokens}': 'the prompt token ids', '{maxNewTokens}': 'the golden\'s new-token count' } as const;

const UrlPath = z.string().regex(/^\/[^\s]*$/, 'a URL path starting with "/"');

export const ServeSchema = z.strictObject({
  argv: z.array(z.string().min(1)).min(1).describe('the server command; placeholders {port} {slots} and the recipe\'s ({buildDir} …)'),
  env: z.record(z.string(), z.string()).default({}).describe('environment of the server (the recipe driver\'s env is not inherited)'),
  slots: count(1, 1024).default(4).describe('parallel slots ({slots}) when the command line gives no --slots and the load is a rate; a concurrency C gives C slots'),
  ready: z.strictObject({
    path: UrlPath.describe('GET this until it answers 200: the server has loaded'),
    timeoutS: seconds().default(300),
  }),
  // The readers of streamed responses nh-gate knows; each is code (src/serve/stream.ts).
  protocol: z.enum(['llama-server']).describe('how a streamed response is read: llama-server (/completion events with tokens, stop, timings)'),
  request: z.strictObject({
    path: UrlPath.describe('POST each request here'),
    body: z.record(z.string(), z.unknown()).describe('the JSON body; the string values "{promptTokens}" and "{maxNewTokens}" are replaced by the prompt\'s ids and the golden\'s count'),
  }),
}).superRefine((s, ctx) => {
  const text = JSON.stringify(s.request.body);
  for (const [ph, what] of Object.entries(BODY_PLACEHOLDERS)) {
    if (!text.includes(`"${ph}"`)) ctx.addIssue({ code: 'custom', path: ['request', 'body'], message: `the body never sends ${what}: put "${ph}" where the server reads it` });
  }
  if (s.protocol === 'llama-server') {
    for (const [k, why] of [['stream', 'the harness times tokens as they stream'], ['return_tokens', 'the harness judges the token ids the server returns']] as const) {
      if (s.request.body[k] !== true) ctx.addIssue({ code: 'custom', path: ['request', 'body', k], message: `must be true: ${why}` });
    }
  }
  if (!s.argv.some((a) => a.includes('{port}'))) ctx.addIssue({ code: 'custom', path: ['argv'], message: 'the server must listen on the port the harness picks: put {port} in the argv' });
});

export type ServeConfig = z.infer<typeof ServeSchema>;

// The body of one request: the template with its placeholders replaced (values, not text).
export function requestBody(template: Record<string, unknown>, promptTokens: readonly number[], maxNewTokens: number): Record<string, unknown> {
  const fill = (v: unknown): unknown => {
    if (v === '{promptTokens}') return [...promptTokens];
    if (v === '{maxNewTokens}') return maxNewTokens;
    if (Array.isArray(v)) return v.map(fill);
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(template) as Record<string, unknown>;
}
