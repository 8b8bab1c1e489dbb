// The fixed prompt set of the committed nh-ref goldens: short, mixed-length UTF-8 text, one with a non-ASCII byte run.
export const DEFAULT_PROMPTS: readonly string[] = [
  'The quick brown fox',
  'In a hybrid decoder, the state',
  'def fib(n):\n    return',
  'Grüße aus Zürich, 42 km',
];

// A prompt as the byte-level vocabulary sees it: token id = UTF-8 byte value.
export function promptTokens(text: string): number[] {
  return [...Buffer.from(text, 'utf8')];
}
