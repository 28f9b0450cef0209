// Bundles src/index.js and the plugins' styles into ../build/lab/static (served by gillab_lab.py).
const path = require('path');
const rspack = require('@rspack/core');

module.exports = {
  entry: './src/index.js',
  mode: 'production',
  devtool: false,
  output: {
    path: path.resolve(__dirname, '../build/lab/static'),
    filename: 'bundle.js',
    chunkFilename: '[name].[contenthash:8].js',
    clean: true
  },
  experiments: { css: true },
  module: {
    rules: [
      // Some JupyterLab dependencies are ES modules that import without file extensions.
      { test: /\.m?js$/, resolve: { fullySpecified: false } },
      { test: /\.raw\.css$/, type: 'asset/source' },
      { test: /\.css$/, exclude: /\.raw\.css$/, type: 'css/auto' },
      { test: /\.(md|txt)$/, type: 'asset/source' },
      { test: /\.(png|jpg|gif|woff2?|ttf|eot)(\?.*)?$/, type: 'asset/resource' },
      // Icons: strings for code (LabIcon), data URIs inside stylesheets.
      { test: /\.svg(\?.*)?$/, issuer: /\.css$/, type: 'asset/inline' },
      { test: /\.svg(\?.*)?$/, issuer: /\.[cm]?js$/, type: 'asset/source' }
    ]
  },
  plugins: [
    // Some packages read process.env / process.cwd() (e.g. the path polyfill).
    new rspack.DefinePlugin({ process: { cwd: () => '/', env: {} } })
  ],
  performance: { hints: false },
  // Upstream packages' deprecated '~' imports and mathjax's mocked __dirname: harmless here.
  ignoreWarnings: [/request starts with '~' is deprecated/, /"__dirname" is used/]
};
