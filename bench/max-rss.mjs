// Preloaded with `node --import` into a measured process: on exit, appends its peak
// resident set size (KiB) to the file named by VOUCHERS_BENCH_RSS_FILE.
import { appendFileSync } from 'node:fs';

const file = process.env.VOUCHERS_BENCH_RSS_FILE;
if (file) process.on('exit', () => appendFileSync(file, `${process.resourceUsage().maxRSS}\n`));
