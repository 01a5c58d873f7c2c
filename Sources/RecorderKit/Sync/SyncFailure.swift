import RecorderStore

/// Runs a disk step of the sync, its failure a ``SyncError/storage(_:)``.
func storageStep<T>(_ body: () throws(StorageError) -> T) throws(SyncError) -> T {
  do { return try body() } catch { throw .storage(error) }
}

/// Runs one journal transaction of the sync; a failure is a ``SyncError``: a full disk under
/// the journal is ``SyncError/storage(_:)``, anything else ``SyncError/journal(_:)``.
func writeJournal<T>(_ journal: Journal, _ body: (JournalTransaction) throws -> T)
  throws(SyncError) -> T
{
  do {
    return try journal.write(body)
  } catch let error as JournalError {
    throw .journal(error.description)
  } catch let error as StorageError {
    throw .storage(error)
  } catch {
    throw .journal("\(error)")
  }
}
