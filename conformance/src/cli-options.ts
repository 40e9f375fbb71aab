/** Option parsers shared by the two commands, `gatehouse-conformance` and its `client` mode. */

/**
 * A repeatable comma-separated option (`--only AUTH-001,AUTH-002 --only PRM-001`): the values so
 * far plus this one's non-empty, trimmed items (a commander argument parser).
 */
export function commaList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ]
}
