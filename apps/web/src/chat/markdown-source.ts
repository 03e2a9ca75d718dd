import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked, type Tokens } from 'marked';
import { markedHighlight } from 'marked-highlight';

/**
 * The first, DOM-free half of the page's markdown: text → HTML with marked (GitHub flavour, a single newline is a
 * line break as in a chat) and code fences highlighted by highlight.js. A few common languages are registered,
 * not the whole bundle. What comes out is not yet safe: `markdown.ts` sanitises it with DOMPurify. Two choices
 * are made here already, so the sanitiser is a second line: raw HTML in a message is shown as text (escaped), and
 * an image is shown as a link to it, never loaded (docs/decisions.md, "Markdown on the chat page").
 */
const LANGUAGES = {
  bash,
  css,
  diff,
  go,
  javascript,
  json,
  markdown,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['sh', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });
hljs.registerAliases(['rs'], { languageName: 'rust' });
hljs.registerAliases(['md'], { languageName: 'markdown' });

/** Code longer than this is shown without highlighting (highlighting is the costly part of a render). */
const HIGHLIGHT_LIMIT = 20_000;
/** Text longer than this is not parsed as markdown at all: it is shown as plain text. */
export const MARKDOWN_LIMIT = 200_000;

/** Escapes text for HTML (what marked's own escaping does). */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/**
 * The link targets a message may have: absolute `http:`, `https:` and `mailto:` URLs. Anything else (`javascript:`,
 * `data:`, `vbscript:`, relative paths, protocol-relative `//host`) gives undefined, and the link becomes text.
 */
export function allowedHref(href: string | null | undefined): string | undefined {
  if (!href) return undefined;
  const trimmed = href.trim();
  if (!/^(https?:\/\/|mailto:)/i.test(trimmed)) return undefined;
  try {
    const url = new URL(trimmed);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Only highlight.js's own class names survive on an element (`hljs`, `hljs-*`, `language-*`). */
export function allowedClasses(value: string): string {
  return value
    .split(/\s+/)
    .filter((name) => /^(hljs(-[\w-]+)?|language-[\w-]+)$/.test(name))
    .join(' ');
}

const parser = new Marked(
  { gfm: true, breaks: true, async: false },
  markedHighlight({
    emptyLangClass: 'hljs',
    langPrefix: 'hljs language-',
    highlight(code, lang) {
      if (code.length > HIGHLIGHT_LIMIT) return escapeHtml(code);
      const language = lang && hljs.getLanguage(lang) ? lang : undefined;
      return language
        ? hljs.highlight(code, { language, ignoreIllegals: true }).value
        : escapeHtml(code);
    },
  }),
  {
    renderer: {
      // Raw HTML in a message is text, as the person or the model wrote it.
      html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
      // An image is not loaded (no tracking pixel, nothing fetched): a link to it, named by its alt text.
      image: ({ href, text }: Tokens.Image) => {
        const label = escapeHtml(`image: ${text || href}`);
        const target = allowedHref(href);
        return target ? `<a href="${escapeHtml(target)}">${label}</a>` : label;
      },
    },
  },
);

/** A message's markdown as (unsanitised) HTML; text over {@link MARKDOWN_LIMIT} comes back escaped. */
export function markdownToHtml(text: string): string {
  if (text.length > MARKDOWN_LIMIT) return `<p>${escapeHtml(text)}</p>`;
  return (parser.parse(text) as string).trim();
}
