#pragma once

#include <QByteArray>
#include <optional>

namespace forkscope::indexer {

// logs.args_json of an ABI-decoded ERC-20 Transfer repeats what the row already holds: the
// two addresses of topics 1 and 2 and the decimal value. Contract v4 stores, instead, the
// JSON with those three values replaced by placeholders, once per shape (args_templates),
// and the `logs` view puts them back (store::argsFromTemplateSql()).
//
// A template is used only if it is row-independent and exact: each placeholder occurs
// once, and rendering it with this row's values gives back `argsJson` byte for byte.
// Anything else (a self-transfer, a key that equals a value, an ABI that reads the topics
// another way) keeps its args_json as stored text.
std::optional<QByteArray> argsTemplateFor(const QByteArray& argsJson, const QByteArray& fromHex,
                                          const QByteArray& toHex, const QByteArray& value);
// What the view computes: the placeholders replaced, in the view's order.
QByteArray renderArgsTemplate(QByteArray tmpl, const QByteArray& fromHex, const QByteArray& toHex,
                              const QByteArray& value);

} // namespace forkscope::indexer
