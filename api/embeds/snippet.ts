// The copy-paste embed code: an iframe of the widget and a tiny host script (well under 1 KB) that resizes it when the widget reports its height. The script
// accepts rally:resize only from Rally's origin and only for the iframe that sent it, and bounds the height it applies. The sandbox allows forms: a visitor
// signs as a guest inside the widget (site/sign/guest-sign-form.ts).
import { html } from '../../platform/html.ts';
import { widgetUrl, type WidgetOptions } from '../http/petition-urls.ts';

export const DEFAULT_WIDGET_SIZE = { width: 400, height: 240 };

export function hostScript(publicUrl: string): string {
  // The origin is ours (configuration), but is still written as a JSON string with '<' escaped.
  const origin = JSON.stringify(new URL(publicUrl).origin).replace(/</g, '\\u003c');
  return (
    `<script>(function(){var o=${origin};addEventListener("message",function(e){var d=e.data;if(e.origin!==o||!d||d.type!=="rally:resize")return;` +
    `var h=Math.ceil(Number(d.height));if(!(h>0&&h<10000))return;var f=document.querySelectorAll("iframe[data-rally-embed]");` +
    `for(var i=0;i<f.length;i++)if(f[i].contentWindow===e.source)f[i].style.height=h+"px"})})();</script>`
  );
}

export type EmbedOptions = WidgetOptions & { width: number; height: number };

export function widgetIframe(publicUrl: string, petition: { slug: string; title: string }, options: EmbedOptions): string {
  const src = widgetUrl(publicUrl, petition.slug, options);
  const size = html`width="${options.width}" height="${options.height}" style="border:0;width:100%;max-width:${options.width}px"`;
  const sandbox = html`sandbox="allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox"`;
  return html`<iframe data-rally-embed src="${src}" title="Petition: ${petition.title}" ${size} loading="lazy" ${sandbox}></iframe>`.value;
}
