/** Progress on stderr: a rewritten line on a terminal, a line every 10% otherwise. */
export function createProgress(label: string, stream: NodeJS.WriteStream = process.stderr): (done: number, total: number) => void {
  const started = performance.now();
  let lastDraw = 0;
  let lastDecile = -1;
  return (done, total) => {
    const pct = total === 0 ? 100 : Math.floor((100 * done) / total);
    const elapsed = (performance.now() - started) / 1000;
    const line = `${label} ${done}/${total} (${pct}%) ${elapsed.toFixed(1)}s`;
    if (stream.isTTY) {
      const now = performance.now();
      if (done === total || now - lastDraw > 100) {
        lastDraw = now;
        stream.write(`\r${line}${done === total ? "\n" : ""}`);
      }
    } else {
      const decile = Math.floor(pct / 10);
      if (decile !== lastDecile) {
        lastDecile = decile;
        stream.write(`${line}\n`);
      }
    }
  };
}
