import { reflect } from './reflect';
import type { Word } from './to-clauses';

/** What a reassembly needs besides the matched parts. */
export interface PickContext {
  /** Deterministic starting point among the variants (a hash of the input plus the turn number). */
  seed: number;
  /** The agent's name, for `{name}`. */
  agentName: string;
  /** Earlier assistant turns; a variant already said is skipped while another one is left. */
  said: readonly string[];
}

const PLACEHOLDER = /\{(\d+|name)\}/g;

function usesOnlyFilledParts(template: string, parts: readonly Word[][]): boolean {
  for (const [, reference] of template.matchAll(PLACEHOLDER)) {
    if (reference !== 'name' && !parts[Number(reference) - 1]?.length) return false;
  }
  return true;
}

function render(template: string, parts: readonly Word[][], agentName: string): string {
  return template.replace(PLACEHOLDER, (_, reference: string) =>
    reference === 'name' ? agentName : reflect(parts[Number(reference) - 1] ?? []).join(' '),
  );
}

/**
 * Chooses and fills one reassembly template. Templates that need a part the match left empty are skipped
 * ("Why do you want ?" reads badly); undefined when none is usable, so the caller tries its next rule.
 */
export function pickReply(
  templates: readonly string[],
  parts: readonly Word[][],
  context: PickContext,
): string | undefined {
  const usable = templates.filter((template) => usesOnlyFilledParts(template, parts));
  if (usable.length === 0) return undefined;
  let first: string | undefined;
  for (let offset = 0; offset < usable.length; offset++) {
    const text = render(
      usable[(context.seed + offset) % usable.length] as string,
      parts,
      context.agentName,
    );
    first ??= text;
    if (!context.said.some((earlier) => earlier.includes(text))) return text;
  }
  return first;
}
