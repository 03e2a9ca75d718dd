import DOMPurify from 'dompurify';
import { allowedClasses, allowedHref, markdownToHtml } from './markdown-source';

/**
 * What a rendered message may contain: text formatting, lists, quotes, tables, code and links. No style, no
 * forms, no frames, no media, no SVG or MathML; attributes only `href`, `title`, `class` (highlight.js's names
 * only), `start` and `align`.
 */
const ALLOWED_TAGS = [
  'a',
  'blockquote',
  'br',
  'code',
  'del',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'li',
  'ol',
  'p',
  'pre',
  'span',
  'strong',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'tr',
  'ul',
];
const ALLOWED_ATTR = ['href', 'title', 'class', 'start', 'align'];

const purifier = DOMPurify(window);
purifier.addHook('afterSanitizeAttributes', (node) => {
  if (node.hasAttribute('class')) {
    const kept = allowedClasses(node.getAttribute('class') ?? '');
    if (kept) node.setAttribute('class', kept);
    else node.removeAttribute('class');
  }
  if (node.tagName !== 'A') return;
  const href = allowedHref(node.getAttribute('href'));
  if (!href) {
    // Not a link the page follows: its text stays, as text.
    node.removeAttribute('href');
    return;
  }
  node.setAttribute('href', href);
  node.setAttribute('target', '_blank');
  node.setAttribute('rel', 'noopener noreferrer');
});

/** Sanitises HTML with the page's strict configuration, as a fragment (nothing is parsed into the page). */
export function sanitizeHtml(html: string): DocumentFragment {
  return purifier.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
    KEEP_CONTENT: true,
    RETURN_DOM_FRAGMENT: true,
  });
}

/** Renders a message's markdown into `target`, replacing what it held. */
export function renderMarkdown(target: HTMLElement, text: string): void {
  target.replaceChildren(sanitizeHtml(markdownToHtml(text)));
}
