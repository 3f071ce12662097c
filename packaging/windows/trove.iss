; Inno Setup script for Trove on Windows (Inno Setup 6).
;
; Build the one-folder app first, on Windows, from the repository root:
;     py -3.11 -m venv .venv
;     .venv\Scripts\pip install -e ".[package]"
;     .venv\Scripts\pyinstaller --noconfirm --workpath build\pyinstaller --distpath dist packaging\trove.spec
; then compile this script (it reads dist\trove\ and writes dist\trove-<version>-windows-x64-setup.exe):
;     "C:\Program Files (x86)\Inno Setup 6\ISCC.exe" packaging\windows\trove.iss
; Pass /DAppVersion=0.2.0 to ISCC to override the version. See packaging\windows\README.md.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "Trove"
#define SrcDir "..\..\dist\trove"

[Setup]
; A fixed AppId lets later versions upgrade this install in place. Never change it.
AppId={{6F2C1E0B-5A8D-4C1B-9E07-2B7C4D9A31F5}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Trove
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
; Per-user install by default (no admin prompt); the user may choose all users in the dialog.
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=trove-{#AppVersion}-windows-x64-setup
SetupIconFile=trove.ico
UninstallDisplayIcon={app}\trove-gui.exe
; The bundle is ~1 GB of mostly incompressible model weights and libraries: lzma2 at max is slow for little gain.
Compression=lzma2/normal
SolidCompression=no
DiskSpanning=no
WizardStyle=modern
ChangesEnvironment=yes

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: "addtopath"; Description: "Add the 'trove' command to PATH"; GroupDescription: "Command line:"; Flags: unchecked

[Files]
; The whole PyInstaller folder: trove.exe (console, the CLI), trove-gui.exe (windowed) and _internal\.
Source: "{#SrcDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\{#AppName}"; Filename: "{app}\trove-gui.exe"; WorkingDir: "{userdocs}"
Name: "{group}\{cm:UninstallProgram,{#AppName}}"; Filename: "{uninstallexe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\trove-gui.exe"; WorkingDir: "{userdocs}"; Tasks: desktopicon

[Registry]
; Per-user PATH entry for the CLI (removed again on uninstall by the [Code] section below).
Root: HKCU; Subkey: "Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; \
    Tasks: addtopath; Check: NeedsAddPath(ExpandConstant('{app}'))

[Run]
Filename: "{app}\trove-gui.exe"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; PyInstaller never writes into {app} at run time; the library (%LOCALAPPDATA%\Trove) is the user's and stays.
Type: filesandordirs; Name: "{app}\_internal\__pycache__"

[Code]
function NeedsAddPath(Dir: string): Boolean;
var
  Paths: string;
begin
  if not RegQueryStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Paths) then
  begin
    Result := True;
    exit;
  end;
  Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Paths) + ';') = 0;
end;

procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
var
  Paths, Dir: string;
  P: Integer;
begin
  if CurUninstallStep <> usPostUninstall then exit;
  if not RegQueryStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Paths) then exit;
  Dir := ExpandConstant('{app}');
  P := Pos(';' + Uppercase(Dir), Uppercase(Paths));
  if P > 0 then
  begin
    Delete(Paths, P, Length(Dir) + 1);
    RegWriteExpandStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Paths);
  end;
end;
