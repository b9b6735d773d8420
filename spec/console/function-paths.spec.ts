/**
 * The console's pure helpers for the Functions pages, without a browser: finding a definition error's path in the
 * JSON text, reading the path out of the server's message, the steps of a definition, and the line diff.
 */
import { expect } from 'chai';
import { lineAt, locate, parentPath, splitPathMessage, stepPathOf, valueSpans } from '../../console/src/json-paths.js';
import { lineDiff } from '../../console/src/line-diff.js';
import { stepsOf } from '../../console/src/pages/function-model.js';

const definition = {
  label: 'f',
  'odd key': { 'a"b': [1] },
  functions: [
    { type: 'Query', collection: 'c', filter: { type: 'Condition', content: { field: 'x', value: 1 } } },
    { type: 'If', condition: { type: 'HasRecords' }, then_functions: [{ type: 'Qurey' }, { type: 'Count' }] },
  ],
};
const text = JSON.stringify(definition, null, 2);

describe('console: definition paths and diffs', () => {
  it('finds every value of a JSON text by the path syntax of the server errors', () => {
    const spans = valueSpans(text)!;
    const at = (path: string) => JSON.parse(text.slice(spans.get(path)!.start, spans.get(path)!.end)) as unknown;
    expect(at('functions[1].then_functions[0]')).to.deep.equal({ type: 'Qurey' });
    expect(at('functions[0].filter.content.value')).to.equal(1);
    expect(at('["odd key"]["a\\"b"][0]')).to.equal(1);
    expect(at('')).to.deep.equal(definition);
    expect(valueSpans('{"a": ')).to.equal(undefined);
  });

  it('locates a missing member at the nearest value that exists, and the step a path is in', () => {
    const found = locate(text, 'functions[1].then_functions[0].collection')!;
    expect(found.found).to.equal('functions[1].then_functions[0]');
    expect(lineAt(text, found.span.start)).to.equal(text.split('\n').findIndex((l) => l.includes('Qurey')));
    expect(stepPathOf('functions[1].condition.value')).to.equal('functions[1]');
    expect(stepPathOf('label')).to.equal(undefined);
    expect(parentPath('functions[1].then_functions[0]')).to.equal('functions[1].then_functions');
    expect(parentPath('functions')).to.equal('');
  });

  it('reads "<path>: <message>" only when the path starts at a member of a definition', () => {
    expect(splitPathMessage("functions[1].then_functions[0]: unknown step type 'Qurey'", ['functions'])).to.deep.equal({
      path: 'functions[1].then_functions[0]',
      message: "unknown step type 'Qurey'",
    });
    expect(splitPathMessage('Error: something', ['functions'])).to.equal(undefined);
    expect(splitPathMessage("A function with label 'f' already exists", ['functions'])).to.equal(undefined);
  });

  it('lists the steps with their paths in text order, nested lists included', () => {
    expect(stepsOf(definition).map((s) => `${s.depth} ${s.path} ${s.type}`)).to.deep.equal([
      '0 functions[0] Query',
      '0 functions[1] If',
      '1 functions[1].then_functions[0] Qurey',
      '1 functions[1].then_functions[1] Count',
    ]);
  });

  it('diffs two texts by line', () => {
    const diff = lineDiff('a\nb\nc\nd', 'a\nc\nx\nd');
    expect(diff.map((d) => `${d.kind[0]}${d.text}`)).to.deep.equal(['sa', 'rb', 'sc', 'ax', 'sd']);
    expect(lineDiff('same', 'same').every((d) => d.kind === 'same')).to.equal(true);
  });
});
