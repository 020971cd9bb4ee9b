/**
 * The load of bench/conversation.ts, run on a worker thread of its own so its work does not queue behind the
 * server's on one event loop: the fake model, then, for each plan the main thread sends, the conversations. The
 * clients keep their connections alive, as a browser does.
 */
import { once } from 'node:events';
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { startFakeLlmServer, type FakeLlmServer } from '../../test/fakes/llm-server.ts';

export interface LoadPlan {
  apiUrl: string;
  assistantUuid: string;
  conversations: number;
  messages: number;
  rounds: number;
  /** Each level's messages are told apart from the others' by this prefix. */
  level: number;
}

export interface LoadResult {
  overheads: number[];
  totals: number[];
  elapsedMs: number;
  /** CPU microseconds this thread (clients and fake model) spent. */
  loadCpuMicros: number;
}

/** POSTs JSON over a kept-alive connection and resolves with the parsed answer once it has fully arrived. */
function postJson(agent: http.Agent, url: string, body: unknown): Promise<any> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { text += chunk; });
      response.on('end', () => {
        if (response.statusCode === 200) resolve(JSON.parse(text));
        else reject(new Error(`POST ${url}: ${response.statusCode} ${text}`));
      });
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/**
 * Rounds of `conversations` fresh widget conversations at once, each sending `messages` messages one after the
 * other. A turn's overhead is the time the client waited minus the time the model server spent on its request.
 */
async function runPlan(plan: LoadPlan, llm: FakeLlmServer): Promise<LoadResult> {
  const cpuBefore = process.threadCpuUsage();
  const agent = new http.Agent({ keepAlive: true, maxSockets: plan.conversations });
  const overheads: number[] = [];
  const totals: number[] = [];
  const started = performance.now();
  for (let round = 0; round < plan.rounds; round++) {
    await Promise.all(Array.from({ length: plan.conversations }, async (_, c) => {
      const { conversation_id: id } = await postJson(agent, `${plan.apiUrl}/api/conversations`, { assistant_id: plan.assistantUuid, type: 'widget' });
      for (let m = 0; m < plan.messages; m++) {
        const text = `level ${plan.level} round ${round} conversation ${c} message ${m}`;
        const before = performance.now();
        await postJson(agent, `${plan.apiUrl}/api/conversations/${id}/messages`, { message: text });
        const total = performance.now() - before;
        totals.push(total);
        overheads.push(total - (llm.timings.get(text) ?? Number.NaN));
      }
    }));
  }
  const elapsedMs = performance.now() - started;
  agent.destroy();
  const cpu = process.threadCpuUsage(cpuBefore);
  return { overheads, totals, elapsedMs, loadCpuMicros: cpu.user + cpu.system };
}

const port = parentPort!;
const llm = await startFakeLlmServer({ latencyMs: (workerData as { latencyMs: number }).latencyMs, chunkSize: 8 });
llm.respond(() => ({ reply: 'Thank you for your message. Here is a reply of a typical length for a chat turn.' }));
port.postMessage({ llmUrl: llm.baseUrl });
for (;;) {
  const [plan] = await once(port, 'message') as [LoadPlan | null];
  if (!plan) break;
  port.postMessage(await runPlan(plan, llm));
}
await llm.close();
