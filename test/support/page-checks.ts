// Lighthouse-style checks run inside a page with puppeteer: text contrast (WCAG 2 relative
// luminance, against the nearest opaque background), and the basics every page must have. The
// in-page code is plain JavaScript text: the project compiles without the DOM type library.
import type { Frame, Page } from 'puppeteer-core';

export type ContrastFailure = { text: string; color: string; background: string; ratio: number };

const LOW_CONTRAST_TEXT = `(minimum) => {
  const parse = (css) => {
    const match = /rgba?\\(([^)]+)\\)/.exec(css);
    if (!match) return null;
    const [r = 0, g = 0, b = 0, a = 1] = match[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const channel = (value) => { const v = value / 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const luminance = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  const backgroundOf = (element) => {
    for (let at = element; at; at = at.parentElement) {
      const colour = parse(getComputedStyle(at).backgroundColor);
      if (colour && colour.a > 0) return colour;
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  };
  const failures = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    // The text inside <progress> is a fallback that browsers with <progress> never draw.
    if (!node.textContent.trim() || !element || element.closest('progress')) continue;
    const style = getComputedStyle(element);
    if (style.visibility === 'hidden' || element.getClientRects().length === 0) continue;
    const foreground = parse(style.color);
    const background = backgroundOf(element);
    const [light, dark] = [luminance(foreground), luminance(background)].sort((x, y) => y - x);
    const ratio = (light + 0.05) / (dark + 0.05);
    if (ratio < minimum) failures.push({ text: node.textContent.trim().slice(0, 40), color: style.color, background: JSON.stringify(background), ratio });
  }
  return failures;
}`;

/** Every visible text node whose colour has a contrast below `minimum` against its background. */
export function lowContrastText(target: Page | Frame, minimum = 4.5): Promise<ContrastFailure[]> {
  return target.evaluate(`(${LOW_CONTRAST_TEXT})(${minimum})`) as Promise<ContrastFailure[]>;
}

export type PageBasics = { lang: string; title: string; description: string; images: number; imagesWithoutAlt: string[] };

export function pageBasics(target: Page | Frame): Promise<PageBasics> {
  return target.evaluate(`({
    lang: document.documentElement.lang,
    title: document.title,
    description: document.querySelector('meta[name="description"]')?.getAttribute('content') ?? '',
    images: document.images.length,
    imagesWithoutAlt: [...document.images].filter((image) => !image.hasAttribute('alt') || !image.alt.trim()).map((image) => image.src),
  })`) as Promise<PageBasics>;
}
