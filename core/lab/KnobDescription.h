#pragma once

#include <QJsonObject>
#include <QString>

namespace forkscope::lab {

// A fault-proxy change in words for the event log: "delays each reply by 200 ms; fails
// 10% of requests", not the JSON the proxy was sent. Only the knobs in `changes` are named,
// in a fixed order; a key this function does not know is shown as key = value.
QString describeKnobChanges(const QJsonObject& changes);

} // namespace forkscope::lab
