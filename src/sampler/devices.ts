// Which GPU a sampler or silicon read means: chosen explicitly, or the only one — never guessed among several.
import { NhGateError } from '../errors.js';

// Resolves the device index against how many devices the backend sees; null when it sees none.
export function chooseDevice(count: number, requested: number | undefined, seenBy: string): number | null {
  if (requested !== undefined) {
    if (!Number.isInteger(requested) || requested < 0 || requested >= count) {
      throw new NhGateError(
        'NO_SUCH_DEVICE',
        `GPU index ${String(requested)} does not exist: ${seenBy} sees ${count} GPU(s)`,
        count > 0 ? `choose an index from 0 to ${count - 1}` : 'run on a host with a GPU, or leave the device unset for a CPU-only run',
      );
    }
    return requested;
  }
  if (count === 0) return null;
  if (count > 1) {
    throw new NhGateError(
      'AMBIGUOUS_DEVICE',
      `${seenBy} sees ${count} GPUs and none was chosen: a busy figure or silicon key from "some GPU" would not say which`,
      `choose one explicitly (deviceIndex / --device 0..${count - 1}; NVML indices follow PCI bus order, set CUDA_DEVICE_ORDER=PCI_BUS_ID for the engine to match)`,
    );
  }
  return 0;
}
