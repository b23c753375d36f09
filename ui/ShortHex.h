#pragma once

#include <QString>

namespace forkscope::ui {

// The one short form of a hash or an address, in tables, dialogs and reports: "0x5fbd…0aa3"
// (whole on hover and when copied). Only 0x hex longer than an elision saves is shortened;
// decimal amounts, words and short values stay whole. Views showing it elide in the middle
// too (QAbstractItemView::setTextElideMode), so a column narrower than the short form keeps
// one ellipsis and the value's end ("0x47…266"), never "0x47d7……".
QString shortHex(const QString& value);

} // namespace forkscope::ui
