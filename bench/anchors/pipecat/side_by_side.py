"""Pipecat and Parley measured by the same callers in one run (`npm run bench:pipecat-side-by-side` starts this).

The measuring is the anchor's own: load.py's run_level() (N simultaneous callers of media.py, the cached Piper
take of its sentence, its seeded pauses, its latency, jitter, underrun, CPU and RSS figures), imported from
$PIPECAT_ANCHOR_HOME/src unchanged. Two things are added here, both outside the timed path:
- a Parley caller first asks `POST /api/user/web-calls` for a call and then opens the `websocket_url` it gets, a
  Media Streams socket like Pipecat's `/ws`; load.py's clocks start only after the socket is open (greeting: at
  its `start`; latency: at the end of each sentence sent);
- CPU and RSS are summed over the server's process and all its descendants, since Parley's Whisper workers and
  its Temporal dev server are child processes (Pipecat is one process, so for it the sum is load.py's figure).
Levels are interleaved: at each N both products run back to back with the same seed, the first of the pair
alternating from one N to the next. A warm-up call of one turn per product comes first, unreported.
"""
import argparse
import json
import os
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(os.environ["PIPECAT_ANCHOR_HOME"]) / "src"))
import load  # noqa: E402
import media  # noqa: E402

PARLEY_URL = "parley:web-call"  # stands for "ask Parley's API for a web call, then open its socket"
_open_socket = media.MediaStreamsCaller


def post_json(url, body, token):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json", "Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=15) as answer:
        return json.loads(answer.read())


def make_connector(parley):
    def connect(url, **options):
        if url == PARLEY_URL:
            call = post_json(parley["api"] + "/api/user/web-calls", {"assistant_id": parley["assistant"]}, parley["token"])
            url = media.loopback_ws_url(call["data"]["websocket_url"], parley["api"])
        return _open_socket(url, **options)
    return connect


# ------------------------------------------------------------------------------------------------ process tree

def read_stat(pid):
    with open("/proc/%d/stat" % pid) as f:
        head, tail = f.read().rsplit(")", 1)
    parts = tail.split()
    return head.split("(", 1)[1], int(parts[1]), int(parts[11]) + int(parts[12])  # comm, ppid, utime + stime


def command(pid, comm):
    """The program a process runs (node, python3.11, temporal): node names its main thread `MainThread`."""
    try:
        return os.path.basename(os.readlink("/proc/%d/exe" % pid))
    except OSError:
        return comm


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def descendants(root):
    """root and every process below it now (one pass over /proc)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                children.setdefault(read_stat(int(entry))[1], []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


class TreeSampler(load.ProcSampler):
    """load.py's sampler over a process tree. A process's CPU counts from the level's start (or its birth) to
    its last sample, so one that ends during the level keeps what it used; `by_name` splits the CPU by command,
    `peak_by_name` the RSS of the sample with the highest total."""

    def __init__(self, pid, period=0.2):
        super().__init__(pid, period)
        self.base, self.last, self.names = {}, {}, {}
        self.started = False
        self.peak_rss, self.peak_by_name = 0.0, {}
        samplers.append(self)  # run_level() keeps its sampler to itself; measure() reads the split from here

    def _sample(self):
        now = {}
        for pid in descendants(self.pid):  # about 1 ms a pass over /proc, every 0.2 s
            try:
                name, _, ticks = read_stat(pid)
                now[pid] = (name, ticks, rss_mb(pid))
            except (OSError, IndexError, ValueError):
                pass
        for pid, (name, ticks, _) in now.items():
            self.base.setdefault(pid, ticks if not self.started else 0)
            self.last[pid] = ticks
            if pid not in self.names:
                self.names[pid] = command(pid, name)
        self.started = True
        total = sum(rss for _, _, rss in now.values())
        if total > self.peak_rss:
            self.peak_rss, self.peak_by_name = total, {}
            for pid, (_, _, rss) in now.items():
                self.peak_by_name[self.names[pid]] = self.peak_by_name.get(self.names[pid], 0.0) + rss
        return total

    def cpu_s(self):
        self._sample()
        return sum(self.last[pid] - self.base[pid] for pid in self.last) / self.tick

    def rss_mb(self):
        return self._sample()

    def by_name(self):
        used = {}
        for pid in self.last:
            used[self.names[pid]] = used.get(self.names[pid], 0) + (self.last[pid] - self.base[pid]) / self.tick
        return used


samplers = []
load.ProcSampler = TreeSampler


# ------------------------------------------------------------------------------------------------ products

def get_json(url):
    return load.get_json(url, timeout=5)


def parley_idle(metrics_url, timeout=60):
    """No call left on Parley's media gateway (`parley_calls_in_progress`), then 2 s for its calls to be wrapped up."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(metrics_url, timeout=5) as answer:
                text = answer.read().decode()
            live = sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith("parley_calls_in_progress{"))
            if live == 0:
                time.sleep(2)
                return True
        except OSError:
            pass
        time.sleep(0.5)
    return False


def measure(product, n, turns, audio, seed, llm_url):
    before = get_json(llm_url + "/stats")["requests"]
    level = load.run_level(argparse.Namespace(url=product["url"], turns=turns), n, audio, product["pid"], seed)
    sampler = samplers[-1]
    level["cpu_by_name"] = {name: 100.0 * s / sampler.wall for name, s in sampler.by_name().items() if s > 0}
    level["rss_by_name"] = sampler.peak_by_name
    product["idle"]()
    level["llm_requests"] = get_json(llm_url + "/stats")["requests"] - before
    return level


def row(name, r):
    return "| %d | %s | %d/%d | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %.0f | %.0f | %.2f | %.0f | %.1f | %d |" % (
        r["calls"], name, r["turns_ok"], r["turns_wanted"], r["greeting_ms_p50"], r["lat_p50"], r["lat_p95"], r["lat_max"],
        r["voiced_p50"], r["jitter_p99"], r["underrun_max_ms"], r["cpu_pct"], r["cpu_s_per_turn"], r["rss_peak_mb"],
        r["rss_per_call_mb"], r["llm_requests"])


def ratio(a, b):
    return "%.2f" % (a / b) if b else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", default="1,4,8")
    ap.add_argument("--turns", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sentence", default=load.SENTENCE, help="what the callers say (a Piper take of it, cached)")
    ap.add_argument("--llm-url", required=True, help="the fake model, http://127.0.0.1:<port>")
    ap.add_argument("--pipecat-url", required=True)
    ap.add_argument("--pipecat-pid", type=int, required=True)
    ap.add_argument("--parley-api", required=True)
    ap.add_argument("--parley-token", required=True)
    ap.add_argument("--parley-assistant", type=int, required=True)
    ap.add_argument("--parley-pid", type=int, required=True)
    ap.add_argument("--parley-metrics", required=True)
    ap.add_argument("--json-out")
    args = ap.parse_args()
    media.MediaStreamsCaller = make_connector({"api": args.parley_api, "token": args.parley_token, "assistant": args.parley_assistant})
    pipecat_health = args.pipecat_url.replace("ws://", "http://").rsplit("/", 1)[0] + "/health"
    products = [
        {"name": "Pipecat", "url": args.pipecat_url, "pid": args.pipecat_pid, "idle": lambda: load.wait_idle(pipecat_health)},
        {"name": "Parley", "url": PARLEY_URL, "pid": args.parley_pid, "idle": lambda: parley_idle(args.parley_metrics)},
    ]
    audio = load.caller_audio("piper", args.sentence)
    llm = get_json(args.llm_url + "/stats")
    print("caller sentence: %r (Piper joe, %.2f s, cached in %s); fake model: first token %d ms, first sentence %d ms"
          % (args.sentence, len(audio) / 8000.0, load.ANCHOR_HOME / "cache", llm["ttft_ms"], llm["first_sentence_ms"]), flush=True)
    for product in products:
        warm = measure(product, 1, 1, audio, 0, args.llm_url)
        print("warm-up %s: %d/1 turn, latency %.0f ms, errors %s" % (product["name"], warm["turns_ok"], warm["lat_p50"], warm["errors"][:3]), flush=True)
    results = []
    for index, n in enumerate(int(x) for x in args.calls.split(",")):
        pair = {}
        for product in (products if index % 2 == 0 else products[::-1]):
            r = measure(product, n, args.turns, audio, args.seed + n, args.llm_url)
            pair[product["name"]] = r
            print("N=%d %s: %d/%d turns, latency p50 %.0f ms, load average %.1f, errors %s" % (
                n, product["name"], r["turns_ok"], r["turns_wanted"], r["lat_p50"], os.getloadavg()[0], r["errors"][:3]), flush=True)
        results.append(pair)

    print()
    print("Both servers ran throughout on this machine (%d cores); load.py's callers and the fake model share them." % os.cpu_count())
    print("lat: the caller's end of speech (its last voiced frame sent) -> the first reply audio frame received; "
          "voiced: the same to the first voiced frame. CPU and RSS: the server's process tree (% of one core).")
    hdr = ("calls", "product", "turns", "greet p50", "lat p50", "lat p95", "lat max", "voiced p50", "jitter p99", "underrun max",
           "CPU %", "CPU s/turn", "RSS MB", "RSS +MB/call", "LLM requests")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for pair in results:
        for name in ("Pipecat", "Parley"):
            print(row(name, pair[name]))
    print()
    print("| calls | Parley/Pipecat lat p50 | lat p95 | voiced p50 | jitter p99 | CPU % | CPU s/turn | RSS peak |")
    print("|---|---|---|---|---|---|---|---|")
    for pair in results:
        a, b = pair["Parley"], pair["Pipecat"]
        print("| %d | %s |" % (a["calls"], " | ".join(ratio(a[k], b[k]) for k in (
            "lat_p50", "lat_p95", "voiced_p50", "jitter_p99", "cpu_pct", "cpu_s_per_turn", "rss_peak_mb"))))
    print()
    for pair in results:
        for name in ("Pipecat", "Parley"):
            r = pair[name]
            cpu = ", ".join("%s %.0f %%" % item for item in sorted(r["cpu_by_name"].items(), key=lambda item: -item[1]))
            rss = ", ".join("%s %.0f MB" % item for item in sorted(r["rss_by_name"].items(), key=lambda item: -item[1]))
            print("N=%d %s: CPU by command %s; RSS at the peak by command %s; client CPU %.0f %%; late sends %d%s" % (
                r["calls"], name, cpu or "-", rss or "-", r["client_cpu_pct"], r["client_late_sends"],
                "; errors %s; problems %s" % (r["errors"][:3], r["problems"][:3]) if r["errors"] or r["problems"] else ""))
    heard = get_json(args.llm_url + "/stats")["last_user"]
    print("what the recognizers heard (last 4 model requests): %s" % heard[-4:])
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
