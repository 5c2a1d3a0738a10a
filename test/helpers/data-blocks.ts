/** Reading judge prompts in tests: the text without its data-block tags, and the blocks' names. */

const BLOCK = /<data_([0-9a-f]{16}) name="([^"]*)">\n([\s\S]*?)\n<\/data_\1>/g;

/** The prompt as it would read without data blocks (each block replaced by its text). */
export function unfenced(prompt: string): string {
  return prompt.replace(BLOCK, (_whole, _nonce: string, _name: string, text: string) => text);
}

/** The names of the prompt's data blocks, in order. */
export function blockNames(prompt: string): string[] {
  return [...prompt.matchAll(BLOCK)].map((m) => m[2]!);
}

/** The text of the prompt's block with this name (undefined when there is none). */
export function blockText(prompt: string, name: string): string | undefined {
  return [...prompt.matchAll(BLOCK)].find((m) => m[2] === name)?.[3];
}
