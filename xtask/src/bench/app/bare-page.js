document.open();
document.write('<!doctype html><html><head><meta charset="utf-8"></head><body><input id="bench-floor-box" type="search" autocomplete="off"></body></html>');
document.close();
return true;
