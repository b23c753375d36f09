#include "PostgresDatabasePrompt.h"
#include "config/SettingsValidation.h"

#include <QInputDialog>
#include <QObject>

namespace forkscope::ui {

std::optional<QString> askPostgresDatabaseUrl(QWidget* parent, const QString& current)
{
    QString text = current.startsWith(QLatin1String("postgres"), Qt::CaseInsensitive)
                       ? current
                       : QStringLiteral("postgresql://postgres@127.0.0.1:5432/forkscope");
    QString problem;
    for (;;) {
        bool ok = false;
        const QString label =
            QObject::tr("The PostgreSQL URL of a database. This window indexes into it as "
                        "into a file, the lab included; `forkscope index --db URL` processes "
                        "on other machines may write it too.\nA password is better kept in "
                        "~/.pgpass than in the URL; it is never saved with the recent "
                        "databases.") +
            (problem.isEmpty() ? QString() : QStringLiteral("\n\n") + problem);
        text = QInputDialog::getText(parent, QObject::tr("Open PostgreSQL database"), label,
                                     QLineEdit::Normal, text, &ok)
                   .trimmed();
        if (!ok)
            return std::nullopt;
        const auto error = config::validatePostgresUrl(text);
        if (!error)
            return text;
        problem = *error;
    }
}

} // namespace forkscope::ui
