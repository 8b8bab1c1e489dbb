import * as z from 'zod';

// Samples file (JSONL), written by the live sampler (NVML addon or nvidia-smi) and read by analyze.
// Times are seconds on the harness's monotonic clock (CLOCK_MONOTONIC, the clock of process.hrtime).
export const SamplesHeaderSchema = z.object({
  kind: z.literal('header'),
  schemaVersion: z.literal(1),
  source: z.enum(['nvml', 'nvidia-smi', 'file']),
  clock: z.literal('monotonic_s'),
  // How the source timestamps were mapped to monotonic seconds (stated, never implied).
  clockConversion: z.string(),
  device: z.record(z.string(), z.unknown()).optional(),
  nominalPeriodMs: z.number().positive().optional(),
  // What the sampler itself reports (backend status, clock check, drift, partial/coverage facts); free-form.
  sampler: z.record(z.string(), z.unknown()).optional(),
});

// A driver utilization sample: the GPU was busy gpuPct% over the period ending at tS.
export const UtilSampleSchema = z.object({
  kind: z.literal('util'),
  tS: z.number().finite(),
  gpuPct: z.number().min(0).max(100),
  periodS: z.number().positive().optional().describe('length of the period the value covers, if known'),
});

export const GpmSampleSchema = z.object({
  kind: z.literal('gpm'),
  tS: z.number().finite(),
  intervalS: z.number().positive(),
  smUtilPct: z.number().nullable(),
  smOccupancyPct: z.number().nullable(),
  dramBwUtilPct: z.number().nullable(),
});

export const ClockSampleSchema = z.object({
  kind: z.literal('clock'),
  tS: z.number().finite(),
  smMHz: z.number().nullable(),
  memMHz: z.number().nullable(),
  eventReasons: z.array(z.string()).default([]),
});

export const ProcsSampleSchema = z.object({
  kind: z.literal('procs'),
  tS: z.number().finite(),
  pids: z.array(z.number().int()),
});

export const SamplerErrorSchema = z.object({
  kind: z.literal('error'),
  tS: z.number().finite(),
  message: z.string(),
});

export const SampleLineSchema = z.discriminatedUnion('kind', [
  SamplesHeaderSchema,
  UtilSampleSchema,
  GpmSampleSchema,
  ClockSampleSchema,
  ProcsSampleSchema,
  SamplerErrorSchema,
]);

export type SampleLine = z.infer<typeof SampleLineSchema>;
export type UtilSample = z.infer<typeof UtilSampleSchema>;
export type GpmSample = z.infer<typeof GpmSampleSchema>;
