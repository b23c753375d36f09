#pragma once

#include <QString>
#include <optional>

class QWidget;

namespace forkscope::ui {

// File > Open PostgreSQL database...: asks for the postgresql:// URL of a database and
// checks it before the engine restarts on it (a wrong URL is said in the dialog, the
// current database stays open). nullopt when cancelled.
std::optional<QString> askPostgresDatabaseUrl(QWidget* parent, const QString& current);

} // namespace forkscope::ui
