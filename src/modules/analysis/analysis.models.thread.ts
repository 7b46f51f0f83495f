// A photo's analysis in a worker thread of its own (docs/api.md §30, decisions/0028). The detectors
// run TensorFlow.js's WASM backend synchronously, a few hundred milliseconds a photo, and the pixel
// stage's passes over its grey copy are plain JavaScript (up to ~90 ms): on the server's main
// thread every API request waited behind them (`GET /v1/listings` p99 at 13.5x idle,
// `npm run bench:analysis`). Here the thread does both and the main thread only posts a file name
// and gets the findings back.
//
// One thread per process, started on the first photo and kept (the models load once); a thread
// that dies (out of memory: its heap is bounded) fails the photos it was reading, and the next
// photo starts a new one. `close()` ends it.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { analysePixels, AnalysisError, type PixelAnalysis } from './analysis.pixels.ts';
import { localModelReader, type ModelAnalysis, type ModelOptions, type ModelReader } from './analysis.models.ts';

/** The thread's JavaScript heap, in MiB: the models' weights live in WASM memory, not here. */
const THREAD_HEAP_MB = 256;

type Ask = { file: string } | { pixels: string } | { close: true };
type Request = Ask & { id: number };
type Reply =
  | { id: number; result: ModelAnalysis }
  | { id: number; pixels: PixelAnalysis }
  | { id: number; error: string; analysis: boolean }
  | { id: number; closed: true };

/** The process's model reader: the models in one worker thread, one photo at a time. */
export function modelReader(options: ModelOptions): ModelReader {
  let worker: Worker | undefined;
  let next = 0;
  const waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();

  function start(): Worker {
    const w = new Worker(new URL(import.meta.url), {
      workerData: { ...options, analysisThread: true },
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    // A thread waiting for work keeps no process alive (the CLI ends when its work does).
    w.unref();
    w.on('message', (reply: Reply) => {
      const pending = waiting.get(reply.id);
      waiting.delete(reply.id);
      pending?.resolve(reply);
    });
    const gone = (err: Error) => {
      if (worker === w) worker = undefined;
      for (const [id, pending] of waiting) {
        waiting.delete(id);
        pending.reject(err);
      }
    };
    w.on('error', gone);
    w.on('exit', (code) => gone(new Error(`the analysis thread ended (exit code ${code})`)));
    return w;
  }

  function ask(message: Ask): Promise<Reply> {
    worker ??= start();
    const id = next++;
    const w = worker;
    const reply = new Promise<Reply>((resolve, reject) => waiting.set(id, { resolve, reject }));
    // While a photo is being read the thread must keep the process alive: its result is awaited.
    w.ref();
    w.postMessage({ ...message, id });
    return reply.finally(() => {
      if (waiting.size === 0) w.unref();
    });
  }

  function failed(reply: Reply): Error {
    if ('error' in reply) return reply.analysis ? new AnalysisError(reply.error) : new Error(reply.error);
    return new Error('the analysis thread answered with something else');
  }

  return {
    async read(file) {
      const reply = await ask({ file });
      if ('result' in reply) return reply.result;
      throw failed(reply);
    },
    async pixels(file) {
      const reply = await ask({ pixels: file });
      if ('pixels' in reply) return reply.pixels;
      throw failed(reply);
    },
    async close() {
      const w = worker;
      if (w === undefined) return;
      // The thread ends its OCR worker itself, then the thread is ended.
      await ask({ close: true }).catch(() => undefined);
      worker = undefined;
      await w.terminate();
    },
  };
}

/** The thread's side: reads each photo it is sent with the models, in turn. */
function serve(port: NonNullable<typeof parentPort>, options: ModelOptions): void {
  const reader = localModelReader(options);
  port.on('message', (request: Request) => {
    void (async (): Promise<Reply> => {
      if ('close' in request) {
        await reader.close();
        return { id: request.id, closed: true };
      }
      try {
        if ('pixels' in request)
          return { id: request.id, pixels: await analysePixels(request.pixels, options.maxPixels) };
        return { id: request.id, result: await reader.read(request.file) };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        return { id: request.id, error: message, analysis: err instanceof AnalysisError };
      }
    })().then((reply) => port.postMessage(reply));
  });
}

if (
  !isMainThread &&
  parentPort !== null &&
  (workerData as { analysisThread?: unknown } | null)?.analysisThread === true
) {
  serve(parentPort, workerData as ModelOptions);
}
