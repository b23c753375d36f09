#pragma once

#include <QJsonObject>
#include <QString>

namespace forkscope::lab {

// A fault-proxy change in words for the event log: "delays each reply by 200 ms; fails
// 10% of requests", not the JSON the proxy was sent. Only the knobs in `changes` are named,
// in a fixed order; a key this function does not know is shown as key = value.
QString describeKnobChanges(const QJsonObject& changes);

// The knobs of `requested` whose value differs from `before` (the proxy's knobs as they
// were): a dialog sends every knob it shows, and only what it changes is news. A cap mode
// without a cap is left out too: it changes nothing until a cap is set.
QJsonObject changedKnobs(const QJsonObject& before, const QJsonObject& requested);

} // namespace forkscope::lab
