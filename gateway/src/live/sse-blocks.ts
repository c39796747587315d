// Reading the live stream's wire format (hub.ts `sse` writes it): chunks of text in, whole event blocks out.
// For the stream's clients in this repository that are not a browser (the tests, bench:live), which receive
// chunks cut anywhere, so a block can arrive in pieces or several to a chunk.

/** A feeder for one stream: give it each chunk; it returns the blocks (text between blank lines) completed by it. */
export function sseBlockSplitter(): (chunk: string) => string[] {
  let buffer = "";
  return (chunk) => {
    buffer += chunk;
    const blocks: string[] = [];
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      blocks.push(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
    }
    return blocks;
  };
}
