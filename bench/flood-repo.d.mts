// Types for bench/flood-repo.mjs, which the fault tests share with bench/flood.mjs.
export declare const FLOOD_GOLDEN: Record<string, unknown>;
export declare function floodRepo(env?: Record<string, string>, timeoutS?: number): { root: string; recipePath: string };
