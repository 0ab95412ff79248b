/**
 * Markdown cut to fit a size limit (a comment, a job summary): at a line break, with any
 * `<details>` or code fence left open closed again so the rest of the page still renders, and a
 * note that says it was cut.
 */

export function cutMarkdown(text: string, limit: number, note: (length: number) => string): string {
  if (text.length <= limit) return text;
  const tail = `\n\n${note(text.length)}\n`;
  // 200: room for the closers below (a fence, at most 15 `</details>`).
  let kept = text.slice(0, Math.max(0, limit - tail.length - 200));
  const lastBreak = kept.lastIndexOf('\n');
  if (lastBreak > 0) kept = kept.slice(0, lastBreak);
  const closers: string[] = [];
  if ((kept.match(/^\s*```/gm)?.length ?? 0) % 2 === 1) closers.push('```');
  const open = (kept.match(/<details[\s>]/gi)?.length ?? 0) - (kept.match(/<\/details>/gi)?.length ?? 0);
  for (let i = 0; i < Math.min(open, 15); i++) closers.push('</details>');
  return `${kept}${closers.length ? `\n\n${closers.join('\n')}` : ''}${tail}`;
}
