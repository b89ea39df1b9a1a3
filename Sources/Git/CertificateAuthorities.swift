internal import CGit2
internal import FoundationEssentials
internal import GitStore
internal import Synchronization

/// The certificate authorities that https connections trust. Certificates are always verified:
/// nothing here can turn verification off.
public enum CertificateAuthorities {
    /// The system's folder of authorities; libgit2 parses the bundle in it (``systemBundle``)
    /// when it starts, or (in the `concord` executable) at the first TLS connection (``Libgit2``).
    public static let systemFolder = "/etc/ssl/certs"
    /// The system's bundle of authorities.
    public static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"

    private static let added = Mutex<String?>(nil)

    /// Trusts the authorities in the PEM file `file` as well as the system's, for every later
    /// connection of this process. Adding the same file again does nothing.
    /// - Throws: ``GitError`` when the file cannot be read as certificates.
    public static func add(file: String) throws {
        Libgit2.ensure()
        guard file != systemBundle else { return }
        try added.withLock { current in
            guard current != file else { return }
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw GitError(
                    code: .certificate, errorClass: .ssl,
                    message: "the certificate file \(file) cannot be read", function: "git_libgit2_opts")
            }
            // libgit2 replaces its list with what it is given, a file and a folder, and mbedTLS
            // reads every file of the folder. The system's folder holds each authority two or three
            // times (its name and its hash links): given a private folder holding only a link to
            // the system's bundle, mbedTLS reads each authority once (an https clone spent 158 M
            // instructions, a third of its work, reading the system's folder).
            if FileManager.default.fileExists(atPath: systemBundle), let folder = Self.folderLinking(to: systemBundle) {
                defer { Self.remove(folder) }
                try check("git_libgit2_opts", concord_git_set_ssl_cert_locations(file, folder))
            } else {
                let folder = FileManager.default.fileExists(atPath: systemFolder) ? systemFolder : nil
                try check("git_libgit2_opts", concord_git_set_ssl_cert_locations(file, folder))
            }
            current = file
        }
    }

    /// A new private folder (mode 0700, in the temporary folder) holding one link, to `bundle`;
    /// nil when it cannot be made.
    private static func folderLinking(to bundle: String) -> String? {
        var template = Array((ProcessVariable.temporaryFolder + "concord-authorities-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
        let folder = String(cString: made)
        guard symlink(bundle, folder + "/system.crt") == 0 else {
            rmdir(folder)
            return nil
        }
        return folder
    }

    /// Removes a folder ``folderLinking(to:)`` made.
    private static func remove(_ folder: String) {
        unlink(folder + "/system.crt")
        rmdir(folder)
    }
}
