import { z } from 'zod';

/** What a fact must be to be kept: bounds and the junk to drop. */
export interface FactBounds {
  maxPerReply: number;
  maxChars: number;
}

/** Claims that read as instructions to a model, not facts about a person: never stored, never recalled. */
const INSTRUCTION =
  /\b(ignore|disregard|forget)\b.{0,40}\b(instructions?|prompt|rules|above)\b|\bsystem prompt\b|\byou (must|should|will) (always|now|never)\b/i;
/** Markup, links and code: what a person's fact does not contain (and what a prompt should not carry back). */
const MARKUP = /[<>{}`]|https?:\/\//i;

/** One claim as the model or the rules give it. */
export const factClaimSchema = z.object({
  claim: z.string(),
  type: z.enum(['fact', 'opinion', 'status']).catch('fact'),
  already_known: z.boolean().catch(false),
});

/** A claim folded for comparison: what makes two facts the same fact. */
export function factKey(claim: string): string {
  return claim
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The claims worth storing: trimmed, within `maxChars`, at least two words, neither markup nor links nor
 * instructions, not already known (by folded text) and not repeated; at most `maxPerReply`.
 */
export function validFacts(
  candidates: readonly unknown[],
  known: ReadonlySet<string>,
  bounds: FactBounds,
): string[] {
  const kept: string[] = [];
  const seen = new Set(known);
  for (const candidate of candidates) {
    const parsed = factClaimSchema.safeParse(candidate);
    if (!parsed.success || parsed.data.already_known) continue;
    const claim = parsed.data.claim.replace(/\s+/g, ' ').trim();
    const key = factKey(claim);
    if (claim.length < 3 || claim.length > bounds.maxChars || key.split(' ').length < 2) continue;
    if (MARKUP.test(claim) || INSTRUCTION.test(claim) || seen.has(key)) continue;
    seen.add(key);
    kept.push(claim);
    if (kept.length >= bounds.maxPerReply) break;
  }
  return kept;
}
