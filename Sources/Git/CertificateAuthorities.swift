internal import CGit2
internal import Foundation
internal import Synchronization

/// The certificate authorities that https connections trust. Certificates are always verified:
/// nothing here can turn verification off.
public enum CertificateAuthorities {
    /// The system's folder of authorities; libgit2 parses the bundle in it (``systemBundle``)
    /// when it starts (``Libgit2``).
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
            // libgit2 replaces its list with what it is given: the file, then the system's folder.
            let folder = FileManager.default.fileExists(atPath: systemFolder) ? systemFolder : nil
            try check("git_libgit2_opts", concord_git_set_ssl_cert_locations(file, folder))
            current = file
        }
    }
}
