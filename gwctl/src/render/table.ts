/**
 * Plain aligned text tables (kubectl style): a header row in capitals, columns separated by at
 * least two spaces, no trailing blanks, so the output reads well and greps well.
 */

/** Renders rows under headers; an empty table shows `<none>` under the first header. */
export function renderTable(
  headers: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
): string {
  const body = rows.length > 0 ? rows : [['<none>', ...headers.slice(1).map(() => '')]]
  const widths = headers.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()
  return [line(headers), ...body.map(line)].join('\n')
}
