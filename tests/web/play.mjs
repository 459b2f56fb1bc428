// Plays the reference web client in headless Chromium (Debian's /usr/bin/chromium, driven
// by playwright-core), as tests/web/test_browser.py asks:
//
//   node tests/web/play.mjs '{"scenario": "classic", "base": "http://127.0.0.1:PORT",
//                             "screenshots": "var/screenshots", "chromium": "/usr/bin/chromium", ...}'
//
// It runs the one scenario of scenarios.mjs its config names, prints one JSON line (what it
// saw) and exits 0, or prints the failure and exits 1.

import { Run, assert } from "./lib.mjs";
import * as scenarios from "./scenarios.mjs";

const config = JSON.parse(process.argv[2]);
const run = new Run(config);
const scenario = scenarios[config.scenario];
let exitCode = 0;
try {
  assert(typeof scenario === "function", `no scenario ${config.scenario}`);
  await run.launch();
  await scenario(run);
  assert(run.problems.length === 0, run.problems.join("; "));
} catch (e) {
  exitCode = 1;
  run.seen.error = String(e.stack || e);
  run.seen.problems = run.problems;
} finally {
  await run.browser?.close();
}
process.stdout.write(JSON.stringify(run.seen) + "\n");
process.exit(exitCode);
