import path from 'node:path';

/**
 * The daemon's import directions (docs/STYLE.md#imports), as one ESLint rule:
 * - a folder of `daemon/src/` is entered only through its `index.ts`: a file outside the folder
 *   that names any other file in it (or in its subfolders) is reported;
 * - `daemon/src/store/` never imports a feature folder (features depend on the store, not back);
 * - `daemon/src/config.ts` imports no folder (every feature reads its config, not the other way).
 * Files directly in `daemon/src/` (errors.ts, clock.ts…) are modules of their own and open to all.
 */

const SOURCE_EXT = /\.(?:[cm]?js|[cm]?ts)$/;

/** `daemon/src` of the checkout the linted file is in, or null when the file is not daemon code. */
function daemonRoot(file) {
  const parts = path.resolve(file).split(path.sep);
  for (let i = parts.length - 2; i > 0; i--) {
    if (parts[i] === 'daemon' && parts[i + 1] === 'src') return parts.slice(0, i + 2).join(path.sep);
  }
  return null;
}

/** The top-level folder of `daemon/src` a path is in (null for a file directly in it or outside it). */
function folderOf(root, file) {
  const rel = path.relative(root, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const parts = rel.split(path.sep);
  return parts.length > 1 ? parts[0] : null;
}

function isIndexOf(root, folder, file) {
  return path.join(root, folder, 'index') === file.replace(SOURCE_EXT, '');
}

/** @type {import('eslint').Rule.RuleModule} */
const folderBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: "Daemon folders are imported through their index.ts; the store imports no feature; config.ts imports no folder." },
    schema: [],
    messages: {
      deep: "Import '{{folder}}/' through its index.ts (export what you need there), not '{{source}}' (docs/STYLE.md#imports).",
      storeToFeature: "daemon/src/store/ never imports a feature folder ('{{folder}}/'); pass what the store needs in from the caller (docs/STYLE.md#imports).",
      configToFolder: "daemon/src/config.ts imports no folder ('{{folder}}/'): features read the config, not the other way round (docs/STYLE.md#imports).",
    },
  },
  create(context) {
    const file = path.resolve(context.filename);
    const root = daemonRoot(file);
    if (!root) return {};
    const own = folderOf(root, file);
    const isConfig = file === path.join(root, 'config.ts');

    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), source);
      const folder = folderOf(root, target);
      if (!folder || folder === own) return;
      if (isConfig) context.report({ node, messageId: 'configToFolder', data: { folder } });
      else if (own === 'store') context.report({ node, messageId: 'storeToFeature', data: { folder } });
      else if (!isIndexOf(root, folder, target)) context.report({ node, messageId: 'deep', data: { folder, source } });
    }

    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
      TSImportType: (node) => {
        const arg = node.argument;
        const literal = arg?.type === 'TSLiteralType' ? arg.literal : arg;
        if (literal?.type === 'Literal') check(node, literal.value);
      },
    };
  },
};

export default { meta: { name: 'daemon-imports' }, rules: { 'folder-boundaries': folderBoundaries } };
