// The main window's database choice: File > Open (an existing file is migrated, a new name
// creates one), and the recent list. The engine restarts on the chosen database; the
// window only names it.
#include "MainWindow.h"

#include <QFileDialog>
#include <QMenu>
#include <QSettings>
#include <QUrl>

namespace forkscope::ui {

QStringList MainWindow::recentDatabases()
{
    return QSettings().value(QStringLiteral("recentDatabases")).toStringList();
}

void MainWindow::rememberDatabase(const QString& path)
{
    QStringList recent = recentDatabases();
    recent.removeAll(path);
    recent.prepend(path);
    QSettings().setValue(QStringLiteral("recentDatabases"), recent.mid(0, kMaxRecent));
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = recentDatabases();
    for (const QString& path : recent)
        m_recentMenu->addAction(path, this, [this, path] { openDatabase(path); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::chooseDatabase()
{
    // An existing file is opened (and migrated), a new name creates one.
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Open or create a database"), m_lastStatus.dbPath,
                                     tr("SQLite database (*.sqlite *.sqlite3 *.db);;All files (*)"),
                                     nullptr, QFileDialog::DontConfirmOverwrite);
    if (path.isEmpty())
        return;
    openDatabase(path);
}

void MainWindow::openDatabase(const QString& path)
{
    // A URL's password stays out of the log (and of the recent list: the status carries the
    // URL without it).
    appendLog(QStringLiteral("info"),
              tr("opening database %1; restarting the engine")
                  .arg(QUrl(path).scheme().startsWith(QLatin1String("postgres"))
                           ? QUrl(path).toString(QUrl::RemovePassword)
                           : path));
    emit databaseChosen(path);
}

} // namespace forkscope::ui
