// A magic's result in Lab (recognised by gillab's own MIME type): its HTML table with the chart
// drawn live from the bundle's Vega-Lite spec (tooltips; a menu saves it as SVG or PNG) in place
// of the PNG that the classic Notebook and nbconvert show. Stock rendermime picks one MIME type
// per output, and text/html outranks Vega-Lite, so without this the live chart would never show
// beside the table.
import { htmlRendererFactory, MimeModel } from '@jupyterlab/rendermime';
import { RenderedVega, VEGALITE5_MIME_TYPE } from '@jupyterlab/vega5-extension';
import { Panel } from '@lumino/widgets';

// The table's own copy of the chart: the PNG images inside the HTML.
function withoutPngImages(html) {
  const template = document.createElement('template');
  template.innerHTML = html;
  for (const img of template.content.querySelectorAll('img[src^="data:image/png"]')) {
    img.remove();
  }
  return template.innerHTML;
}

class RenderedResult extends Panel {
  constructor(options) {
    super();
    this._options = options;
    this.addClass('gillab-RenderedResult');
  }

  async renderModel(model) {
    for (const widget of [...this.widgets]) {
      widget.dispose();
    }
    const rendering = [];
    const html = model.data['text/html'];
    if (typeof html === 'string') {
      const table = htmlRendererFactory.createRenderer({ ...this._options, mimeType: 'text/html' });
      this.addWidget(table);
      rendering.push(
        table.renderModel(
          new MimeModel({
            data: { 'text/html': withoutPngImages(html) },
            metadata: model.metadata,
            trusted: model.trusted
          })
        )
      );
    }
    if (model.data[VEGALITE5_MIME_TYPE]) {
      const chart = new RenderedVega({ ...this._options, mimeType: VEGALITE5_MIME_TYPE });
      chart.addClass('gillab-RenderedResult-chart');
      this.addWidget(chart);
      rendering.push(chart.renderModel(model));
    }
    await Promise.all(rendering);
  }
}

// The figures' type in a magic's result bundle (magics/render/render.hpp): only gillab's results
// carry it, so other libraries' Vega-Lite and HTML outputs keep their stock renderers.
export const RESULT_MIME_TYPE = 'application/vnd.gillab.result+json';

// Ranked before text/html (50) and the stock Vega renderer (57).
export default {
  id: 'gillab:result-renderer',
  description: 'Renders a result table with its Vega-Lite chart, live.',
  rendererFactory: {
    safe: true,
    mimeTypes: [RESULT_MIME_TYPE],
    createRenderer: options => new RenderedResult(options)
  },
  rank: 45,
  dataType: 'json'
};
